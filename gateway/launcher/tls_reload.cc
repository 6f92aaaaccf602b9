#include "gateway/launcher/tls_reload.h"

#include <openssl/asn1.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "operator/k8s/pem.h"

namespace rdmastack::gateway {
namespace {

using k8s::OpenSslPtr;

StatusOr<std::string> ReadSmallFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return NotFoundError("cannot read the TLS " + std::string(what) + " " + path + ": " +
                         std::strerror(errno));
  }
  std::ostringstream out;
  out << in.rdbuf();
  if (out.str().size() > (1u << 20))
    return InvalidArgumentError("the TLS " + std::string(what) + " " + path + " is over 1 MiB");
  return out.str();
}

std::string OneLineName(X509_NAME* name) {
  OpenSslPtr<BIO> bio(BIO_new(BIO_s_mem()));
  X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_ONELINE & ~ASN1_STRFLGS_ESC_MSB);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string Serial(X509* cert) {
  OpenSslPtr<BIGNUM> bn(ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr));
  if (bn == nullptr) return "?";
  char* hex = BN_bn2hex(bn.get());
  std::string out = hex != nullptr ? std::string("0x") + hex : "?";
  OPENSSL_free(hex);
  return out;
}

std::string NotAfter(X509* cert) {
  struct tm tm {};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) != 1) return "?";
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

StatusOr<TlsPairInfo> CheckTlsFiles(const TlsFiles& files) {
  RDMASTACK_ASSIGN_OR_RETURN(std::string cert_pem, ReadSmallFile(files.cert, "certificate"));
  RDMASTACK_ASSIGN_OR_RETURN(std::string key_pem, ReadSmallFile(files.key, "key"));
  RDMASTACK_RETURN_IF_ERROR(k8s::CheckPemKeyPair(cert_pem, key_pem, files.cert, files.key));
  const OpenSslPtr<X509> cert = k8s::ParsePemCertificate(cert_pem);
  TlsPairInfo info;
  info.summary = "subject " + OneLineName(X509_get_subject_name(cert.get())) + ", serial " +
                 Serial(cert.get()) + ", expires " + NotAfter(cert.get());
  info.cert_pem = std::move(cert_pem);
  info.key_pem = std::move(key_pem);
  return info;
}

int SuperviseWithTlsReload(const ExecPlan& plan, const Environment& env, const TlsFiles& files,
                           std::chrono::milliseconds interval) {
  StatusOr<TlsPairInfo> serving = CheckTlsFiles(files);
  if (!serving.ok()) {
    std::cerr << Refuse(RefusalClass::kTls, serving.status()).ToLine() << std::endl;
    return static_cast<int>(RefusalClass::kTls);
  }
  // The signals we forward are taken synchronously; the child gets the old mask back.
  sigset_t handled, previous;
  sigemptyset(&handled);
  for (int s : {SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2, SIGCHLD})
    sigaddset(&handled, s);
  sigprocmask(SIG_BLOCK, &handled, &previous);
  std::cout.flush();
  std::cerr.flush();
  const pid_t child = ::fork();
  if (child < 0) {
    std::cerr << Refusal{RefusalClass::kExec,
                         std::string("cannot fork the gateway: ") + std::strerror(errno)}
                     .ToLine()
              << std::endl;
    return static_cast<int>(RefusalClass::kExec);
  }
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    Refusal failed = ExecGateway(plan, env);
    std::cerr << failed.ToLine() << std::endl;
    ::_exit(failed.exit_code());
  }
  std::cerr << "rdmastack-gateway: serving HTTPS with " << serving->summary << "; pid " << child
            << ", reloaded when " << files.cert << " or " << files.key << " change" << std::endl;
  std::string rejected;  // why the pair on disk was last found unusable (said once)
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(interval);
  const timespec wait{static_cast<time_t>(seconds.count()),
                      static_cast<long>((interval - seconds).count() * 1000000)};
  for (;;) {
    siginfo_t info;
    const int sig = sigtimedwait(&handled, &info, &wait);
    if (sig == SIGCHLD) {
      int status = 0;
      const pid_t done = ::waitpid(child, &status, WNOHANG);
      if (done != child) continue;
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      return 128 + WTERMSIG(status);
    }
    if (sig > 0) {
      ::kill(child, sig);  // the kubelet's stop, or an operator's manual reload
      continue;
    }
    if (errno != EAGAIN && errno != EINTR) continue;
    StatusOr<TlsPairInfo> now = CheckTlsFiles(files);
    if (!now.ok()) {
      // Mid-rotation (the kubelet swaps both files at once, but a hand edit may not): keep the
      // working pair and say so once.
      const std::string key = std::string(now.status().message());
      if (key != rejected) {
        std::cerr << "rdmastack-gateway: not reloading TLS: " << now.status().message()
                  << "; still serving " << serving->summary << std::endl;
        rejected = key;
      }
      continue;
    }
    if (now->cert_pem == serving->cert_pem && now->key_pem == serving->key_pem) continue;
    std::cerr << "rdmastack-gateway: TLS files changed, reloading: " << now->summary << std::endl;
    ::kill(child, SIGHUP);
    serving = std::move(now);
    rejected.clear();
  }
}

}  // namespace rdmastack::gateway
