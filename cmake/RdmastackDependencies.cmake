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
# The operator's metrics registry and text format (prometheus-cpp::core only; Debian's package
# config also looks for civetweb, zlib and curl, which prometheus-cpp-dev pulls in).
find_package(prometheus-cpp REQUIRED CONFIG)
# gzip for the plugin's must-gather archive (zlib1g-dev, already pulled in by gRPC and OpenSSL).
find_package(ZLIB REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(IBVERBS REQUIRED IMPORTED_TARGET libibverbs)

# spdlog is compiled once, into a static archive of ours (rdmastack::logging, base/CMakeLists.txt;
# base/spdlog_library.cc says why), and fmt is header-only: the node agent then needs neither
# libspdlog.so nor libfmt.so nor libstdc++.so at run time (it links libstdc++ statically,
# docs/bench-agent.md). The definitions hold for every target, not only those linking
# rdmastack::logging: one that included spdlog without them would compile spdlog's implementation
# inline again, a second definition of each of its functions.
add_compile_definitions(SPDLOG_COMPILED_LIB SPDLOG_FMT_EXTERNAL FMT_HEADER_ONLY)
get_target_property(RDMASTACK_SPDLOG_INCLUDE spdlog::spdlog_header_only INTERFACE_INCLUDE_DIRECTORIES)
get_target_property(RDMASTACK_FMT_INCLUDE fmt::fmt-header-only INTERFACE_INCLUDE_DIRECTORIES)

# RapidJSON's config exports variables, not a target.
if(NOT TARGET rdmastack::rapidjson)
  add_library(rdmastack_rapidjson INTERFACE)
  target_include_directories(rdmastack_rapidjson SYSTEM INTERFACE ${RAPIDJSON_INCLUDE_DIRS})
  # Allocation-heavy std::string-backed API is what we want; SSE4.2 speeds up whitespace skipping.
  target_compile_definitions(rdmastack_rapidjson INTERFACE RAPIDJSON_HAS_STDSTRING=1)
  add_library(rdmastack::rapidjson ALIAS rdmastack_rapidjson)
endif()

# The node agent's transport (agents/node-agent/transport): gRPC's wire protocol on nghttp2
# (static archive) over OpenSSL 3, because gRPC C++ alone exceeds the agent's memory budget.
# OpenSSL stays a shared library (Debian's libssl3, OpenSSL::SSL found above), so that a security
# update of the package reaches the agent without rebuilding it (docs/agent.md, "Transport").
find_library(RDMASTACK_NGHTTP2_STATIC NAMES libnghttp2.a REQUIRED)
find_library(RDMASTACK_PROTOBUF_STATIC NAMES libprotobuf.a REQUIRED)
find_path(RDMASTACK_NGHTTP2_INCLUDE nghttp2/nghttp2.h REQUIRED)
add_library(rdmastack_nghttp2 INTERFACE)
target_include_directories(rdmastack_nghttp2 SYSTEM INTERFACE ${RDMASTACK_NGHTTP2_INCLUDE})
if(RDMASTACK_SHARED_LIBS)
  # Debian's archive is not position-independent, so a shared library cannot hold it.
  find_library(RDMASTACK_NGHTTP2_SHARED NAMES libnghttp2.so REQUIRED)
  target_link_libraries(rdmastack_nghttp2 INTERFACE ${RDMASTACK_NGHTTP2_SHARED})
else()
  target_link_libraries(rdmastack_nghttp2 INTERFACE ${RDMASTACK_NGHTTP2_STATIC})
endif()
add_library(rdmastack::nghttp2 ALIAS rdmastack_nghttp2)

# Protobuf runtime for generated messages. An executable with the RDMASTACK_STATIC_RUNTIME
# property (the node agent) links the static archive, so only the lite runtime its LITE_RUNTIME
# messages use ends up in it; everything else shares libprotobuf.so with gRPC. Never both in one
# process: two copies of protobuf's globals do not mix.
# With shared libraries (the sanitizer trees) the messages live in a shared library that links
# libprotobuf.so, so every executable there does too.
add_library(rdmastack_protobuf INTERFACE)
if(RDMASTACK_SHARED_LIBS)
  target_link_libraries(rdmastack_protobuf INTERFACE protobuf::libprotobuf)
else()
  target_link_libraries(rdmastack_protobuf INTERFACE
    "$<IF:$<BOOL:$<TARGET_PROPERTY:RDMASTACK_STATIC_RUNTIME>>,${RDMASTACK_PROTOBUF_STATIC},protobuf::libprotobuf>")
endif()
target_include_directories(rdmastack_protobuf SYSTEM INTERFACE ${Protobuf_INCLUDE_DIRS})
add_library(rdmastack::protobuf ALIAS rdmastack_protobuf)

find_program(RDMASTACK_PROTOC protoc REQUIRED)
find_program(RDMASTACK_GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
