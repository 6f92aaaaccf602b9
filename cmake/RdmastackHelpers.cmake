# Helpers that give every target of ours the same warnings, sanitizers and layout.
include(GoogleTest)

set(RDMASTACK_WARNINGS -Wall -Wextra -Werror -Wno-missing-field-initializers)

function(rdmastack_apply_common target)
  target_compile_options(${target} PRIVATE ${RDMASTACK_WARNINGS})
  if(CMAKE_UNITY_BUILD)
    # A unity source includes each .cc, so GCC sees a class of one .cc that holds a type from its
    # anonymous namespace as a header's class doing so; in a single translation unit it is not.
    target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
  endif()
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
  rdmastack_apply_sanitizers(${target})
endfunction()

# The sanitizer flags alone, for code of others compiled in our tree (base/spdlog_library.cc): TSan
# must see every access and every atomic, or it reports races that are not there.
function(rdmastack_apply_sanitizers target)
  if(RDMASTACK_SANITIZE OR RDMASTACK_FUZZ)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
      # Relative to the build tree: ccache hashes this argument as written, and an absolute path
      # would make every clone at another path miss.
      file(RELATIVE_PATH ignorelist ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}/cmake/clang-ubsan-ignorelist.txt)
      target_compile_options(${target} PRIVATE -fsanitize-ignorelist=${ignorelist})
    endif()
  endif()
  if(RDMASTACK_FUZZ)
    # The code under test, not only each fuzzer's entry file, needs libFuzzer's coverage
    # (fuzzer-no-link) to steer the inputs: without it a fuzzer sees only the edges of its own
    # file. The unit tests link the same libraries; the ASan runtime answers the coverage hooks
    # there, so one tree (the asan preset) serves both and its libraries compile once.
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
  if(RDMASTACK_TSAN)
    # -Wno-tsan (GCC): Boost.Asio's std_fenced_block uses atomic_thread_fence, which GCC warns TSan
    # does not model; Asio's queues are mutex-protected, and a real false positive would show as
    # a report, which the suppressions file then explains.
    target_compile_options(${target} PRIVATE -fsanitize=thread -fno-omit-frame-pointer
                                             $<$<CXX_COMPILER_ID:GNU>:-Wno-tsan>)
    target_link_options(${target} PRIVATE -fsanitize=thread)
  endif()
endfunction()

if(RDMASTACK_TSAN AND NOT TARGET tsan_tests)
  add_custom_target(tsan_tests)
endif()
# The asan preset runs only the unit tests, so it builds only them (and what they depend on), not
# the integration, e2e and bench executables.
if(RDMASTACK_SANITIZE AND NOT TARGET asan_unit_tests)
  add_custom_target(asan_unit_tests)
endif()

# Our libraries are static, but shared in the sanitizer trees (RDMASTACK_SHARED_LIBS, the asan and
# tsan presets): there every test executable held its own instrumented copy of the libraries it
# uses, and the asan tree came to 10.0 GiB, more than a CI disk had free. Nothing of these trees
# ships, so nothing there needs a self-contained binary.
if(RDMASTACK_SHARED_LIBS)
  set(RDMASTACK_LIBRARY_TYPE SHARED)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
else()
  set(RDMASTACK_LIBRARY_TYPE STATIC)
endif()

# rdmastack_first_gtest_user(OUT dep...): OUT is the first dep that is GoogleTest or a library of
# ours that uses it (empty if none, or if such a library is not defined yet).
function(rdmastack_first_gtest_user out)
  foreach(dep IN LISTS ARGN)
    if(dep MATCHES "^GTest::")
      set(${out} ${dep} PARENT_SCOPE)
      return()
    endif()
    if(TARGET ${dep})
      get_target_property(uses_gtest ${dep} RDMASTACK_USES_GTEST)
      if(uses_gtest)
        set(${out} ${dep} PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# rdmastack_library(NAME SRCS a.cc b.cc DEPS x y)
# A library that uses GoogleTest, itself or through another such library, stays static: a shared
# one would hold a second copy of GoogleTest's globals, and a failure it reports would reach a
# registry the test executable never reads.
function(rdmastack_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS;PRIVATE_DEPS" ${ARGN})
  rdmastack_first_gtest_user(gtest_user ${ARG_DEPS} ${ARG_PRIVATE_DEPS})
  if(gtest_user)
    add_library(${name} STATIC ${ARG_SRCS})
    set_target_properties(${name} PROPERTIES RDMASTACK_USES_GTEST ON)
  else()
    add_library(${name} ${RDMASTACK_LIBRARY_TYPE} ${ARG_SRCS})
    set_property(GLOBAL APPEND PROPERTY RDMASTACK_OUR_LIBRARIES ${name})
  endif()
  rdmastack_apply_common(${name})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# rdmastack_library decides a library's type when it is defined, so one that names a test library
# defined later would become shared with GoogleTest in it. Once every target exists, this asks the
# same question again of each library that became shared and fails the configure step where the
# answer changed. (Its shared dependencies are asked themselves; its static ones are GoogleTest
# users, which this finds, or archives of others.)
function(rdmastack_check_shared_libraries)
  if(NOT RDMASTACK_SHARED_LIBS)
    return()
  endif()
  get_property(libraries GLOBAL PROPERTY RDMASTACK_OUR_LIBRARIES)
  foreach(library IN LISTS libraries)
    get_target_property(deps ${library} LINK_LIBRARIES)
    rdmastack_first_gtest_user(gtest_user ${deps})
    if(gtest_user)
      message(FATAL_ERROR "${library} is a shared library but links ${gtest_user}, which uses "
                          "GoogleTest; define ${gtest_user} before ${library}")
    endif()
  endforeach()
endfunction()

# rdmastack_binary(NAME SRCS main.cc DEPS x) -> build/bin/NAME
function(rdmastack_binary name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SRCS})
  rdmastack_apply_common(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
endfunction()

# A binary that runs on every node for the life of the node (the agent, the client): its resident
# memory is a product feature (target 8 MiB, docs/bench-agent.md), so protobuf is linked statically
# (see rdmastack::protobuf), unused sections are dropped, and libstdc++ too is static: only libc
# and libm stay shared (the sanitizers need the shared runtime).
function(rdmastack_lean_node_binary target)
  set_target_properties(${target} PROPERTIES RDMASTACK_STATIC_RUNTIME ON)
  target_link_options(${target} PRIVATE -Wl,--gc-sections -Wl,--as-needed)
  if(NOT RDMASTACK_SANITIZE AND NOT RDMASTACK_FUZZ)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
  endif()
endfunction()

# rdmastack_test(NAME SRCS a_test.cc DEPS x LABEL unit|integration|e2e|bench [TIMEOUT s] [TSAN])
# Integration/e2e tests expect a running cluster (scripts/test.sh brings one up) and read
# RDMASTACK_KUBECONFIG; ctest -L selects by label. TSAN marks unit tests of concurrent code: the
# tsan preset builds only those (target tsan_tests) and labels their tests tsan instead.
function(rdmastack_test name)
  cmake_parse_arguments(ARG "TSAN" "LABEL;TIMEOUT" "SRCS;DEPS" ${ARGN})
  if(NOT ARG_LABEL)
    set(ARG_LABEL unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  add_executable(${name} ${ARG_SRCS})
  rdmastack_apply_common(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  if(RDMASTACK_TSAN AND ARG_TSAN)
    set(ARG_LABEL tsan)
    add_dependencies(tsan_tests ${name})
  endif()
  if(RDMASTACK_SANITIZE AND ARG_LABEL STREQUAL "unit")
    add_dependencies(asan_unit_tests ${name})
  endif()
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  # One variable only: gtest_discover_tests splits a list-valued ENVIRONMENT property. Tests find
  # the build tree with rdmastack::testing::BinaryDir() (tests/harness).
  gtest_discover_tests(${name}
    PROPERTIES LABELS ${ARG_LABEL} TIMEOUT ${ARG_TIMEOUT}
               ENVIRONMENT "RDMASTACK_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
    DISCOVERY_TIMEOUT 60)
endfunction()

# rdmastack_proto(NAME PROTOS a.proto [GRPC]) -> static library NAME with the generated messages
# and, with GRPC, NAME_grpc with the generated service stubs (gRPC C++). Keeping the stubs apart
# lets the node agent use the messages without linking gRPC C++.
function(rdmastack_proto name)
  cmake_parse_arguments(ARG "GRPC" "" "PROTOS" ${ARGN})
  set(out_dir ${CMAKE_BINARY_DIR}/gen)
  set(srcs)
  set(grpc_srcs)
  foreach(proto ${ARG_PROTOS})
    get_filename_component(abs ${proto} ABSOLUTE)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${abs})
    string(REGEX REPLACE "\\.proto$" "" stem ${rel})
    set(outs ${out_dir}/${stem}.pb.cc ${out_dir}/${stem}.pb.h)
    set(plugin_args)
    if(ARG_GRPC)
      set(grpc_outs ${out_dir}/${stem}.grpc.pb.cc ${out_dir}/${stem}.grpc.pb.h)
      list(APPEND outs ${grpc_outs})
      list(APPEND grpc_srcs ${grpc_outs})
      set(plugin_args --grpc_out=${out_dir} --plugin=protoc-gen-grpc=${RDMASTACK_GRPC_CPP_PLUGIN})
    endif()
    add_custom_command(
      OUTPUT ${outs}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
      COMMAND ${RDMASTACK_PROTOC} -I${PROJECT_SOURCE_DIR} --cpp_out=${out_dir} ${plugin_args} ${abs}
      DEPENDS ${abs}
      COMMENT "protoc ${rel}")
    list(APPEND srcs ${out_dir}/${stem}.pb.cc ${out_dir}/${stem}.pb.h)
  endforeach()
  add_library(${name} ${RDMASTACK_LIBRARY_TYPE} ${srcs})
  target_include_directories(${name} SYSTEM PUBLIC ${out_dir})
  target_link_libraries(${name} PUBLIC rdmastack::protobuf)
  if(ARG_GRPC)
    add_library(${name}_grpc ${RDMASTACK_LIBRARY_TYPE} ${grpc_srcs})
    target_link_libraries(${name}_grpc PUBLIC ${name} gRPC::grpc++ protobuf::libprotobuf)
  endif()
endfunction()

# rdmastack_fuzzer(NAME SRCS fuzz.cc DEPS x [CORPUS dir] [SECONDS n])
# fuzz.cc defines LLVMFuzzerTestOneInput. With RDMASTACK_FUZZ=ON (the asan preset: clang) it becomes a
# libFuzzer binary run for a bounded time by ctest (label fuzz). The same entry point is also linked
# with a replay driver and run over CORPUS as a unit test, so the gcc builds and the sanitizer
# build exercise the corpus too.
if(RDMASTACK_FUZZ AND NOT TARGET fuzzers)
  add_custom_target(fuzzers)
endif()
function(rdmastack_fuzzer name)
  cmake_parse_arguments(ARG "" "CORPUS;SECONDS" "SRCS;DEPS" ${ARGN})
  if(NOT ARG_SECONDS)
    set(ARG_SECONDS 20)
  endif()
  if(RDMASTACK_FUZZ)
    add_executable(${name} ${ARG_SRCS})
    rdmastack_apply_common(${name})
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(${name} PRIVATE ${ARG_DEPS})
    set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
    add_dependencies(fuzzers ${name})
    set(corpus_copy ${CMAKE_BINARY_DIR}/fuzz/${name}-corpus)
    add_test(NAME ${name}
      COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
              sh -c "rm -rf '${corpus_copy}' && cp -r '${ARG_CORPUS}' '${corpus_copy}' && \
                     '$<TARGET_FILE:${name}>' -max_total_time=${ARG_SECONDS} -timeout=5 -rss_limit_mb=1024 '${corpus_copy}'")
    set_tests_properties(${name} PROPERTIES LABELS fuzz TIMEOUT ${ARG_SECONDS}0)
  endif()
  # The replay: every build but a fuzz-only one; the asan tree has both.
  if(NOT RDMASTACK_FUZZ OR RDMASTACK_SANITIZE)
    add_executable(${name}_replay ${ARG_SRCS} ${PROJECT_SOURCE_DIR}/cmake/fuzz_replay_main.cc)
    rdmastack_apply_common(${name}_replay)
    target_link_libraries(${name}_replay PRIVATE ${ARG_DEPS})
    set_target_properties(${name}_replay PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    add_test(NAME ${name}_replay COMMAND ${name}_replay ${ARG_CORPUS})
    if(RDMASTACK_SANITIZE)
      add_dependencies(asan_unit_tests ${name}_replay)
    endif()
    set_tests_properties(${name}_replay PROPERTIES LABELS unit TIMEOUT 120)
  endif()
endfunction()
