// spdlog's implementation, compiled once for the whole tree (rdmastack::logging).
//
// Every other translation unit is built with SPDLOG_COMPILED_LIB and so sees only declarations.
// Header-only spdlog made each translation unit that logs parse and instantiate all of spdlog's
// implementation: about 10 s of an ASan build per unity batch, for 27 batches per tree
// (docs/development.md, "Where the compile goes"). Debian's libspdlog.so would do the same job,
// but the node agent must not need it at run time, so this archive is linked statically.
#ifndef SPDLOG_COMPILED_LIB
#error "build with SPDLOG_COMPILED_LIB (cmake/RdmastackDependencies.cmake sets it for every target)"
#endif

#include <spdlog/common-inl.h>
#include <spdlog/details/backtracer-inl.h>
#include <spdlog/details/log_msg-inl.h>
#include <spdlog/details/log_msg_buffer-inl.h>
#include <spdlog/details/os-inl.h>
#include <spdlog/details/periodic_worker-inl.h>
#include <spdlog/details/registry-inl.h>
#include <spdlog/logger-inl.h>
#include <spdlog/pattern_formatter-inl.h>
#include <spdlog/sinks/ansicolor_sink-inl.h>
#include <spdlog/sinks/base_sink-inl.h>
#include <spdlog/sinks/sink-inl.h>
#include <spdlog/sinks/stdout_color_sinks-inl.h>
#include <spdlog/spdlog-inl.h>

#include <mutex>

// The templates whose definitions live in the -inl.h files above: those the tree uses, made here.
template class spdlog::sinks::base_sink<std::mutex>;
template class spdlog::sinks::ansicolor_sink<spdlog::details::console_mutex>;
template class spdlog::sinks::ansicolor_stdout_sink<spdlog::details::console_mutex>;
template class spdlog::sinks::ansicolor_stderr_sink<spdlog::details::console_mutex>;
template std::shared_ptr<spdlog::logger> spdlog::stdout_color_mt<spdlog::synchronous_factory>(
    const std::string& logger_name, color_mode mode);
template std::shared_ptr<spdlog::logger> spdlog::stderr_color_mt<spdlog::synchronous_factory>(
    const std::string& logger_name, color_mode mode);
