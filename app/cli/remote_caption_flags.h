#pragma once
// glance-cli caption DIR --endpoint URL [--api-key K] [--remote-model NAME] [--concurrency N]
// [--timeout SECONDS]:
// the flags that send captioning to an OpenAI-compatible server (core/remote/) instead of loading a
// model here, checked before anything runs; a bad one is one line naming it.
#include <atomic>
#include <memory>
#include <string>

#include "app/cli/arg_parser.h"
#include "core/remote/remote_client.h"

namespace glance::cli {

inline constexpr const char* kRemoteValueFlags[] = {"endpoint", "api-key", "remote-model", "concurrency", "timeout"};

// Refuses --api-key, --remote-model, --concurrency and --timeout without --endpoint, and with it the flags
// that only a local model uses (--model, --threads, --precision, ...).
void CheckRemoteFlags(const ArgParser& p);

// The client for --endpoint (the key from --api-key, else $GLANCE_API_KEY; --timeout SECONDS,
// the wait for one answer, default 600); `cancel` ends its
// pauses between tries; `on_retry` hears each retry.
std::shared_ptr<const remote::RemoteClient> RemoteClientFromFlags(
    const ArgParser& p, const std::atomic<bool>* cancel, std::function<void(const std::string&)> on_retry);

// --concurrency N (1..64, default 1).
int ConcurrencyFlag(const ArgParser& p);

// --remote-model, else the server's first model (GET /v1/models), else "default"
// (remote::ResolveRemoteModel). Asking the server also checks, before the run, that it can be
// reached and takes the key.
std::string RemoteModelFromFlags(const ArgParser& p, const remote::RemoteClient& client);

}  // namespace glance::cli
