/* Chapter 03, source unit 1 of 2: plain functions and no kernels, the way a library of device
 * code is written. The program is always built from this unit and events.cl together: as one
 * source (clCreateProgramWithSource with both strings), or compiled apart with
 * clCompileProgram and joined with clLinkProgram (the `binaries` variant). The functions are
 * deliberately small: the separate unit is the lesson, not what is in it. */

/* y = a*x + b in integers: exact, so every scenario checks its result bit for bit. The host
 * keeps |x| <= 1000 and |a|, |b| <= 100, far from int overflow. */
int affine(int x, int a, int b) {
    return a * x + b;
}

/* One step of y <- a*y + c in float. With |a| < 1 it contracts towards c / (1 - a), so
 * rounding errors do not grow with the number of steps (the host's bound relies on that). The
 * builds of the `binaries` scenario must agree bit for bit, so no build may fuse a * y + c into
 * an fma where another does not: FP_CONTRACT is ON by default, and each compiler chooses. */
#pragma OPENCL FP_CONTRACT OFF
float relax(float y, float a, float c) {
    return a * y + c;
}
