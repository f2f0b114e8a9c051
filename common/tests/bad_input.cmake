# The bad-input suite: every chapter is fed the same bad values, plus those of its own options.
# Each case must exit 2 with one line on stderr that names the bad value (the regex), print
# nothing on stdout, dump no core, and leave no partial --csv file behind (expect.sh --no-file).
# Included from the top-level CMakeLists.txt after the chapters.

set(OCLT_BAD_INPUT_DIR ${CMAKE_BINARY_DIR}/tests/bad_input)
file(MAKE_DIRECTORY ${OCLT_BAD_INPUT_DIR})

# oclt_bad_input(<chapter> <case> <regex> [ENV VAR=VALUE] args...): nothing where the chapter
# is not built.
function(oclt_bad_input chapter case regex)
  if(NOT TARGET ${chapter})
    return()
  endif()
  cmake_parse_arguments(ARG "" "ENV" "" ${ARGN})
  set(name ${chapter}.bad_input.${case})
  set(csv ${OCLT_BAD_INPUT_DIR}/${chapter}.${case}.csv)
  set(command sh ${PROJECT_SOURCE_DIR}/common/tests/expect.sh --no-file ${csv} 2 "${regex}")
  if(ARG_ENV)
    list(APPEND command env ${ARG_ENV})
  endif()
  add_test(NAME ${name} COMMAND ${command} $<TARGET_FILE:${chapter}> --csv ${csv}
                                ${ARG_UNPARSED_ARGUMENTS}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS "usage;bad_input" TIMEOUT 120 SKIP_RETURN_CODE 77)
  oclt_label_chapter(${name})
endfunction()

foreach(chapter IN LISTS OCLT_CHAPTERS)
  # Sizes: negative, zero, not a number, overflowing, trailing junk.
  oclt_bad_input(${chapter} size_negative "'-5'.* must be positive" --size -5)
  oclt_bad_input(${chapter} size_zero "'0'.* must be at least 1" --size 0)
  oclt_bad_input(${chapter} size_not_number "'ten'.* is not a number" --size ten)
  oclt_bad_input(${chapter} size_overflow "'99999999999999999999999'.* is too large"
                 --size 99999999999999999999999)
  oclt_bad_input(${chapter} size_power_overflow "'2\\^64'.* is too large" --size 2^64)
  oclt_bad_input(${chapter} size_trailing "'12abc'.* has trailing characters" --size 12abc)
  # Unknown names.
  oclt_bad_input(${chapter} unknown_variant "unknown variant 'nope'" --variant nope)
  oclt_bad_input(${chapter} unknown_option "unknown option '--bogus'" --bogus)
  oclt_bad_input(${chapter} flag_with_value "option '--no-check' takes no value" --no-check=1)
  oclt_bad_input(${chapter} help_with_value "option '--help' takes no value" --help=x)
  oclt_bad_input(${chapter} unknown_short "unknown option '-z'" -zz)
  oclt_bad_input(${chapter} missing_value "option '--reps' needs a value" --reps)
  # Repetitions.
  oclt_bad_input(${chapter} reps_zero "--reps '0' must be between 1 and" --reps 0)
  oclt_bad_input(${chapter} reps_negative "--reps '-1' must be positive" --reps -1)
  # Platform and device: out of range, unmatched, and the same through the environment.
  oclt_bad_input(${chapter} platform_out_of_range "no platform matches '99' \\(available: 0: "
                 --platform 99)
  oclt_bad_input(${chapter} platform_unmatched "no platform matches 'nope'" --platform nope)
  oclt_bad_input(${chapter} device_out_of_range "no device matches '99' \\(available: 0: "
                 --device 99)
  oclt_bad_input(${chapter} device_unmatched "no device matches 'nope'" --device nope)
  oclt_bad_input(${chapter} env_platform "no platform matches 'nope'" ENV OCLT_PLATFORM=nope)
  oclt_bad_input(${chapter} env_device "no device matches 'nope'" ENV OCLT_DEVICE=nope)
  oclt_bad_input(${chapter} env_kernel_dir "OCLT_KERNEL_DIR=/nonexistent holds no readable"
                 ENV OCLT_KERNEL_DIR=/nonexistent)
  # An output file that cannot be written (it replaces the run's own --csv, given first).
  oclt_bad_input(${chapter} csv_unwritable "--csv '/nonexistent/dir/out.csv'"
                 --csv /nonexistent/dir/out.csv)
endforeach()

# Beyond the device's largest allocation (each chapter's own limit message names the size).
oclt_bad_input(01_platform_query size_beyond_device "CL_DEVICE_MAX_MEM_ALLOC_SIZE" --size 1024G)
oclt_bad_input(02_buffers_mapping size_beyond_device "CL_DEVICE_MAX_MEM_ALLOC_SIZE" --size 1024G)
oclt_bad_input(03_events_profiling size_beyond_kernels "--size 1099511627776" --size 1024G)
oclt_bad_input(05_matmul_tiled_vector size_beyond_device "CL_DEVICE_MAX_MEM_ALLOC_SIZE"
               --size 1048576)
oclt_bad_input(05_matmul_tiled_vector shape_missing_part "'64x64' must be N or MxNxK" --size 64x64)
oclt_bad_input(05_matmul_tiled_vector shape_empty_part "N is missing" --size 64xx64)
oclt_bad_input(05_matmul_tiled_vector shape_zero_part "N '0' must be at least 1" --size 64x0x64)
oclt_bad_input(05_matmul_tiled_vector shape_negative_part "K '-3' must be positive"
               --size 64x64x-3)
# --type, --local and --op where a chapter has them.
foreach(chapter 04_reduction_naive_to_cascade 06_subgroup_builtin)
  oclt_bad_input(${chapter} size_beyond_kernels "--size 1099511627776" --size 1024G)
  oclt_bad_input(${chapter} type_unknown "unknown --type 'half'" --type half)
  oclt_bad_input(${chapter} local_not_power_of_two "--local '48' must be a power of two" --local 48)
  oclt_bad_input(${chapter} local_zero "--local '0' must be at least 1" --local 0)
  oclt_bad_input(${chapter} local_beyond_device "--local 1048576 exceeds" --local 1048576)
endforeach()
oclt_bad_input(06_subgroup_builtin op_unknown "unknown --op 'max'" --op max)
oclt_bad_input(03_events_profiling trace_unwritable "--trace '/nonexistent/dir/t.json'"
               --trace /nonexistent/dir/t.json)
