/* Chapter 01, section 3: the kernels a driver provides without source, and the workaround for
 * drivers that differ from the specification on how to get them. */
#include "platform_query.h"

#include <stdio.h>
#include <stdlib.h>

int print_built_in_kernels(const oclt_device *dev) {
    printf("\n3. Built-in kernels\n");
    char *names = oclt_device_string(dev->device, CL_DEVICE_BUILT_IN_KERNELS);
    if (!names || names[0] == '\0') {
        printf("  none on this device (CL_DEVICE_BUILT_IN_KERNELS is empty)\n");
        free(names);
        return OCLT_EXIT_OK;
    }
    cl_int err = CL_SUCCESS;
    cl_program program =
        clCreateProgramWithBuiltInKernels(dev->context, 1, &dev->device, names, &err);
    free(names);
    if (OCLT_CHECK_ERR(err, "clCreateProgramWithBuiltInKernels")) return OCLT_EXIT_FAIL;
    printf("  clCreateProgramWithBuiltInKernels: created, no source needed\n");
    /* The specification hands out the kernels of such a program at once (clBuildProgram on it
     * is CL_INVALID_OPERATION); PoCL wants it built first. So: ask for the kernels, and build
     * only when the driver says the program is not executable yet. Some drivers list built-in
     * kernels they cannot instantiate (Debian's PoCL 3.1 on a CPU): say so and go on. */
    cl_uint count = 0;
    err = clCreateKernelsInProgram(program, 0, NULL, &count);
    if (err == CL_INVALID_PROGRAM_EXECUTABLE) {
        err = clBuildProgram(program, 1, &dev->device, NULL, NULL, NULL);
        if (err != CL_SUCCESS) {
            printf("  clBuildProgram on them: %s (%d): this driver lists built-in kernels it "
                   "cannot provide\n",
                   oclt_error_name(err), (int)err);
            clReleaseProgram(program);
            return OCLT_EXIT_OK;
        }
        err = clCreateKernelsInProgram(program, 0, NULL, &count);
    }
    cl_kernel *kernels = NULL;
    if (!OCLT_CHECK_ERR(err, "clCreateKernelsInProgram(built-in kernels)") && count > 0 &&
        (kernels = calloc(count, sizeof *kernels)) &&
        !OCLT_CHECK(clCreateKernelsInProgram(program, count, kernels, NULL))) {
        printf("  clCreateKernelsInProgram: %u kernels\n", count);
        for (cl_uint k = 0; k < count; ++k) {
            char name[128] = "";
            cl_uint args = 0;
            if (!OCLT_CHECK(clGetKernelInfo(kernels[k], CL_KERNEL_FUNCTION_NAME, sizeof name, name,
                                            NULL)) &&
                !OCLT_CHECK(
                    clGetKernelInfo(kernels[k], CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL)))
                printf("    %-48s %u arguments\n", name, args);
            clReleaseKernel(kernels[k]);
        }
    }
    free(kernels);
    clReleaseProgram(program);
    return OCLT_EXIT_OK;
}
