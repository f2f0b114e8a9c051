# Writes OUTPUT, a C header that holds the text of INPUT as the string NAME[], so that
# 01_first_program finds its kernel from any working directory. Run at build time:
#   cmake -DINPUT=k.cl -DOUTPUT=k_cl.h -DNAME=k_cl -P embed_source.cmake
file(READ "${INPUT}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n    \"" text "${text}")
get_filename_component(input_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp" "/* Generated from ${input_name} by embed_source.cmake: do not edit. */\n"
           "static const char ${NAME}[] =\n    \"${text}\";\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
