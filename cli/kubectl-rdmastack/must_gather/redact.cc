#include "cli/kubectl-rdmastack/must_gather/redact.h"

#include <algorithm>
#include <cctype>

#include "operator/k8s/config.h"

namespace rdmastack::plugin {
namespace {

constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

// Lower case without the separators people put between words.
std::string Normalize(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '-' || c == '_' || c == '.') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

// A scalar below a credential key: strings and numbers are values; booleans and null say nothing.
void RedactScalars(rapidjson::Value& v, rapidjson::Document::AllocatorType& a,
                   bool under_credential, int& count) {
  if (v.IsObject()) {
    for (auto& m : v.GetObject()) {
      const std::string_view key(m.name.GetString(), m.name.GetStringLength());
      const std::string n = Normalize(key);
      bool reference = false;
      for (std::string_view s : {"name", "ref", "file", "path", "namespace", "seconds", "enabled"})
        reference = reference || EndsWith(n, s);
      if (reference && !m.value.IsObject() && !m.value.IsArray()) {
        if (m.value.IsString() && !under_credential) {
          int replaced = 0;
          const std::string text =
              RedactText({m.value.GetString(), m.value.GetStringLength()}, &replaced);
          if (replaced > 0)
            m.value.SetString(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), a);
          count += replaced;
        }
        continue;
      }
      RedactScalars(m.value, a, under_credential || LooksLikeCredentialKey(key), count);
    }
  } else if (v.IsArray()) {
    for (auto& e : v.GetArray()) RedactScalars(e, a, under_credential, count);
  } else if (under_credential && (v.IsString() || v.IsNumber())) {
    v.SetString(kRedacted, a);
    ++count;
  } else if (v.IsString()) {
    int replaced = 0;
    const std::string text = RedactText({v.GetString(), v.GetStringLength()}, &replaced);
    if (replaced > 0) v.SetString(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), a);
    count += replaced;
  }
}

void SetString(rapidjson::Value& v, const std::string& s, rapidjson::Document::AllocatorType& a) {
  v.SetString(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// `--secret-key value`: a credential flag with its value in the next argument.
bool IsBareCredentialFlag(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg.find('=') != std::string_view::npos) return false;
  return LooksLikeCredentialKey(arg);
}

int RedactArgs(rapidjson::Value* list, rapidjson::Document::AllocatorType& a) {
  if (list == nullptr || !list->IsArray()) return 0;
  int count = 0;
  bool next_is_value = false;
  for (auto& e : list->GetArray()) {
    if (!e.IsString()) continue;
    const std::string_view arg(e.GetString(), e.GetStringLength());
    if (next_is_value && (arg.empty() || arg[0] != '-')) {
      e.SetString(kRedacted, a);
      ++count;
      next_is_value = false;
      continue;
    }
    next_is_value = IsBareCredentialFlag(arg);
    int replaced = 0;
    const std::string text = RedactText(arg, &replaced);
    if (replaced > 0) SetString(e, text, a);
    count += replaced;
  }
  return count;
}

rapidjson::Value* Member(rapidjson::Value* v, const char* name) {
  if (v == nullptr || !v->IsObject()) return nullptr;
  auto it = v->FindMember(name);
  return it == v->MemberEnd() ? nullptr : &it->value;
}

int RedactPodSpec(rapidjson::Value* spec, rapidjson::Document::AllocatorType& a) {
  int count = 0;
  for (const char* kind : {"containers", "initContainers", "ephemeralContainers"}) {
    rapidjson::Value* containers = Member(spec, kind);
    if (containers == nullptr || !containers->IsArray()) continue;
    for (auto& c : containers->GetArray()) {
      count += RedactArgs(Member(&c, "args"), a) + RedactArgs(Member(&c, "command"), a);
      rapidjson::Value* env = Member(&c, "env");
      if (env == nullptr || !env->IsArray()) continue;
      for (auto& var : env->GetArray()) {
        rapidjson::Value* name = Member(&var, "name");
        rapidjson::Value* value = Member(&var, "value");
        if (name == nullptr || !name->IsString() || value == nullptr || !value->IsString())
          continue;
        if (LooksLikeCredentialKey({name->GetString(), name->GetStringLength()})) {
          value->SetString(kRedacted, a);
          ++count;
        } else {
          int replaced = 0;
          const std::string text =
              RedactText({value->GetString(), value->GetStringLength()}, &replaced);
          if (replaced > 0) SetString(*value, text, a);
          count += replaced;
        }
      }
    }
  }
  return count;
}

std::string JsonEscaped(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

bool LooksLikeCredentialKey(std::string_view key) {
  const std::string n = Normalize(key);
  for (std::string_view s : {"name", "names", "ref", "file", "path", "namespace"})
    if (EndsWith(n, s)) return false;
  for (std::string_view word :
       {"password", "passwd", "passphrase", "secret", "token", "credential", "apikey", "accesskey",
        "privatekey", "sessionkey", "signingkey", "encryptionkey", "clientkey", "tlskey", "sshkey",
        "dckey", "auth", "bearer", "cookie"}) {
    if (n.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string RedactText(std::string_view text, int* replaced) {
  std::string out;
  int count = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (!IsKeyChar(text[i]) || (i > 0 && IsKeyChar(text[i - 1]))) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsKeyChar(text[end])) ++end;
    const std::string_view key = text.substr(i, end - i);
    out.append(key);
    i = end;
    if (!LooksLikeCredentialKey(key)) continue;
    // KEY, then an optional closing quote (a JSON key), '=' or ':', blanks, an optional quote.
    size_t j = i;
    if (j < text.size() && (text[j] == '"' || text[j] == '\'')) ++j;
    if (j >= text.size() || (text[j] != '=' && text[j] != ':')) continue;
    ++j;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
    char quote = 0;
    if (j < text.size() && (text[j] == '"' || text[j] == '\'')) quote = text[j++];
    size_t v = j;
    auto value_end = [&](size_t at) {
      while (at < text.size()) {
        const char c = text[at];
        if (quote != 0 ? (c == quote && text[at - 1] != '\\')
                       : (std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' ||
                          c == ',' || c == ';' || c == '&' || c == '}' || c == ')'))
          break;
        ++at;
      }
      return at;
    };
    size_t e = value_end(v);
    std::string_view value = text.substr(v, e - v);
    if (value.empty() || value.substr(0, 9) == "<redacted") continue;
    // "Authorization: Bearer abc": the scheme is not the secret, the word after it is.
    std::string scheme = Normalize(value);
    if (quote == 0 && (scheme == "bearer" || scheme == "basic") && e < text.size() &&
        text[e] == ' ') {
      const size_t w = e + 1;
      const size_t we = value_end(w);
      if (we > w) {
        out.append(text.substr(i, w - i));
        out += kRedacted;
        ++count;
        i = we;
        continue;
      }
    }
    out.append(text.substr(i, v - i));
    out += kRedacted;
    ++count;
    i = e;
  }
  if (replaced != nullptr) *replaced += count;
  return out;
}

int RedactValues(k8s::JsonObject& values) {
  int count = 0;
  RedactScalars(values.document(), values.document().GetAllocator(), false, count);
  return count;
}

int RedactObject(k8s::JsonObject& object) {
  int count = 0;
  if (object.Remove({"metadata", "annotations", kLastApplied})) ++count;
  object.StripManagedFields();
  rapidjson::Document& doc = object.document();
  auto& a = doc.GetAllocator();
  rapidjson::Value* spec = Member(&doc, "spec");
  count += RedactPodSpec(spec, a);
  count += RedactPodSpec(Member(Member(spec, "template"), "spec"), a);
  return count;
}

void SecretScrubber::Add(std::string_view value) {
  if (value.size() < kMinScrubLength) return;
  needles_.emplace(value);
  needles_.insert(k8s::EncodeBase64(value));
  needles_.insert(JsonEscaped(value));
  // A multi-line value (a key, a kubeconfig) may be quoted a line at a time.
  size_t start = 0;
  while (value.find('\n', start) != std::string_view::npos) {
    const size_t nl = value.find('\n', start);
    const std::string_view line = value.substr(start, nl - start);
    // PEM's BEGIN/END lines are the same in every key: not a secret, and everywhere.
    if (line.size() >= 2 * kMinScrubLength && line.substr(0, 5) != "-----") needles_.emplace(line);
    start = nl + 1;
  }
  if (start > 0 && value.size() - start >= 2 * kMinScrubLength && value.substr(start, 5) != "-----")
    needles_.emplace(value.substr(start));
}

std::string SecretScrubber::Scrub(std::string_view text, int* replaced) const {
  // Longest first: a value's base64 or a longer value holding a shorter one goes whole.
  std::vector<const std::string*> order;
  for (const std::string& n : needles_) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(), [](const std::string* x, const std::string* y) {
    return x->size() > y->size();
  });
  std::string out(text);
  int count = 0;
  for (const std::string* needle : order) {
    size_t at = out.find(*needle);
    while (at != std::string::npos) {
      out.replace(at, needle->size(), kRedacted);
      ++count;
      at = out.find(*needle, at + sizeof(kRedacted) - 1);
    }
  }
  if (replaced != nullptr) *replaced += count;
  return out;
}

k8s::JsonObject SecretInventory(const k8s::JsonObject& secret, SecretScrubber& scrubber) {
  k8s::JsonObject out;
  (void)out.SetString({"name"}, secret.Name());
  (void)out.SetString({"namespace"}, secret.Namespace());
  (void)out.SetString({"type"}, secret.GetString({"type"}).value_or(""));
  std::set<std::string> keys;
  for (const char* field : {"data", "stringData"}) {
    for (const auto& [key, value] : secret.GetStringMap({field})) {
      keys.insert(key);
      if (std::string_view(field) == "data") {
        StatusOr<std::string> decoded = k8s::DecodeBase64(value);
        if (decoded.ok()) scrubber.Add(*decoded);
        scrubber.Add(value);
      } else {
        scrubber.Add(value);
      }
    }
  }
  // The annotation kubectl apply leaves holds the data as applied; its strings are values too.
  if (auto applied = secret.Annotation(std::string(kLastApplied))) {
    StatusOr<k8s::JsonObject> parsed = k8s::JsonObject::Parse(*applied);
    if (parsed.ok()) {
      for (const char* field : {"data", "stringData"}) {
        for (const auto& [key, value] : parsed->GetStringMap({field})) {
          scrubber.Add(value);
          if (std::string_view(field) == "data") {
            StatusOr<std::string> decoded = k8s::DecodeBase64(value);
            if (decoded.ok()) scrubber.Add(*decoded);
          }
        }
      }
    }
  }
  auto& a = out.document().GetAllocator();
  rapidjson::Value list(rapidjson::kArrayType);
  for (const std::string& k : keys)
    list.PushBack(rapidjson::Value(k.c_str(), static_cast<rapidjson::SizeType>(k.size()), a), a);
  out.document().AddMember("keys", list, a);
  return out;
}

}  // namespace rdmastack::plugin
