/* Chapter 02's data-layout kernels: a struct shared with the host, and OpenCL C's vector types.
 * The host (kernel_side.c) declares the same struct with cl_float4 & co. and checks, at compile
 * time, the offsets that particle_layout reports here at run time. */

/* Offsets in bytes (the host's _Static_asserts say the same):
 *   position 0, velocity 16 (a float3 occupies 16 bytes), mass 32, id 36, kind 40,
 *   7 bytes of padding (a float2 aligns to 8), extent 48, 8 bytes of padding: sizeof 64.
 * The explicit alignment makes the rule visible; float4 would impose 16 anyway. */
typedef struct __attribute__((aligned(16))) {
    float4 position;
    float3 velocity;
    float mass;
    int id;
    char kind;
    float2 extent;
} particle;

/* One work-item reports where the compiler put each field: pointer differences, in bytes.
 * layout[0] = sizeof(particle), layout[1..6] = offsets of position .. extent, and
 * layout[7] = the distance between p[0] and p[1] (the array stride, = sizeof). */
__kernel void particle_layout(__global particle *p, __global uint *layout) {
    if (get_global_id(0) != 0) return;
    __global const char *base = (__global const char *)&p[0];
    layout[0] = (uint)sizeof(particle);
    layout[1] = (uint)((__global const char *)&p[0].position - base);
    layout[2] = (uint)((__global const char *)&p[0].velocity - base);
    layout[3] = (uint)((__global const char *)&p[0].mass - base);
    layout[4] = (uint)((__global const char *)&p[0].id - base);
    layout[5] = (uint)((__global const char *)&p[0].kind - base);
    layout[6] = (uint)((__global const char *)&p[0].extent - base);
    layout[7] = (uint)((__global const char *)&p[1] - base);
}

/* One step on every particle, each field changed by one exact or singly rounded operation so
 * the host can predict every bit: a field read from the wrong offset shows at once. */
__kernel void particle_step(__global particle *p, const uint n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    particle q = p[i];
    q.position.xyz += q.velocity; /* one rounding per component, as on the host */
    q.position.w = -q.position.w;
    q.mass *= 2.0f; /* exact */
    q.id = q.id * 3 + 1;
    q.kind = (char)(q.kind ^ 0x55);
    q.extent = q.extent.yx; /* a swizzle: swap */
    p[i] = q;
}

/* Vector types, one row of TABLE_WIDTH ints per input; the host computes every entry with
 * plain C (kernel_side.c names the columns in the same order).
 *   conversions: convert_<type>[_sat][_rte|_rtz|_rtp|_rtn]; float -> int rounds toward zero
 *                unless told otherwise, int -> float to nearest even; _sat clamps (NaN -> 0);
 *   as_<type>:   the same bits seen as another type of the same size (no conversion);
 *   literals:    (int4)(7) broadcasts, (int4)(a.xy, -1, w) composes from parts;
 *   swizzles:    .xyzw, .s0-.sF, .lo/.hi/.even/.odd, on either side of an assignment.
 * Results are stored with as_int so float bits compare exactly. */
#define TABLE_WIDTH 66

__kernel void vector_table(__global const float *x, __global const float *big,
                           __global const int *w, __global const int *lanes, __global int *table,
                           const uint n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    __global int *row = table + i * TABLE_WIDTH;
    const float xi = x[i];   /* |xi| < 2^31: in range for the plain conversions */
    const float bi = big[i]; /* anything: infinities, NaN, out of range -> only _sat */
    const int wi = w[i];
    const int16 v = vload16(i, lanes);

    /* float -> int with each rounding mode, then saturating conversions */
    row[0] = convert_int(xi); /* = _rtz */
    row[1] = convert_int_rte(xi);
    row[2] = convert_int_rtp(xi);
    row[3] = convert_int_rtn(xi);
    row[4] = convert_int_sat(bi);
    row[5] = convert_int_sat_rte(bi);
    row[6] = convert_char_sat_rte(xi);
    row[7] = convert_uchar_sat(wi);
    row[8] = convert_short_sat(wi);
    /* int -> float: most 32-bit ints are not floats, so the rounding mode shows */
    row[9] = as_int(convert_float(wi)); /* = _rte */
    row[10] = as_int(convert_float_rtz(wi));
    row[11] = as_int(convert_float_rtp(wi));
    row[12] = as_int(convert_float_rtn(wi));
    /* as_<type>: reinterpretation */
    row[13] = as_int(xi);
    const uchar4 bytes = as_uchar4(wi); /* byte 0 is the least significant on little-endian */
    row[14] = bytes.x;
    row[15] = bytes.y;
    row[16] = bytes.z;
    row[17] = bytes.w;
    /* literals */
    vstore4((int4)(7), 0, row + 18);
    /* = v.s0123, loaded on its own: Oclgrind 21.10's --uninitialized check crashes on some
     * shuffles that mix lanes of the 16-wide v with other values. */
    const int4 a = vload4(0, lanes + 16 * i);
    vstore4((int4)(a.xy, -1, wi), 0, row + 22); /* a vector part, then two scalars */
    vstore4(as_int4((float4)(1.0f, -2.0f, 0.5f, 0.25f) * xi), 0, row + 26); /* exact */
    /* swizzles */
    vstore4(a.wzyx, 0, row + 30);
    vstore4(v.s5A0F, 0, row + 34);
    vstore8(v.even, 0, row + 38);
    vstore8(v.odd, 0, row + 46);
    vstore4(v.hi.odd, 0, row + 54);
    vstore4(a.xxyy, 0, row + 58);
    int4 c = a;
    c.xz = (int2)(wi, 6); /* a swizzle on the left writes only the lanes it names */
    vstore4(c, 0, row + 62);
}
