# Every dependency comes from a Debian bookworm package (scripts/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(OpenSSL 3 REQUIRED)
find_package(Boost 1.81 REQUIRED CONFIG)
find_package(RapidJSON REQUIRED CONFIG)
find_package(yaml-cpp REQUIRED CONFIG)
find_package(spdlog REQUIRED CONFIG)
find_package(fmt REQUIRED CONFIG)
find_package(Protobuf REQUIRED)
find_package(gRPC REQUIRED CONFIG)
find_package(GTest REQUIRED CONFIG)
find_package(PkgConfig REQUIRED)
pkg_check_modules(IBVERBS REQUIRED IMPORTED_TARGET libibverbs)

# RapidJSON's config exports variables, not a target.
if(NOT TARGET rdmastack::rapidjson)
  add_library(rdmastack_rapidjson INTERFACE)
  target_include_directories(rdmastack_rapidjson SYSTEM INTERFACE ${RAPIDJSON_INCLUDE_DIRS})
  # Allocation-heavy std::string-backed API is what we want; SSE4.2 speeds up whitespace skipping.
  target_compile_definitions(rdmastack_rapidjson INTERFACE RAPIDJSON_HAS_STDSTRING=1)
  add_library(rdmastack::rapidjson ALIAS rdmastack_rapidjson)
endif()

find_program(RDMASTACK_PROTOC protoc REQUIRED)
find_program(RDMASTACK_GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
