#pragma once
// The folder view's "Run on: an OpenAI-compatible endpoint" (issue 33): where a caption run sends
// its images instead of the model loaded here — the same server, key, model, concurrency and
// timeout as glance-cli caption DIR --endpoint URL --api-key KEY --remote-model NAME
// --concurrency N --timeout SECONDS (core/remote/) — and how the choice is kept between runs.
//
// The API key is kept in the settings file only when the user ticks "remember" (then in plain
// text, as the dialog says); otherwise it lives in this process only, and an empty key means
// $GLANCE_API_KEY, as for the CLI.
//
// GUI thread only (the settings file is).
#include <QString>

namespace glance::ui {

struct RemoteEndpointChoice {
  bool on = false;      // false: this computer (the model loaded in the main window)
  QString url;          // the server's root, with or without /v1
  QString apiKey;       // as typed; "" = $GLANCE_API_KEY
  bool rememberKey = false;
  QString model;        // "" = the server's first (GET /v1/models), else "default"
  int concurrency = 1;  // requests in flight, 1 to 64
  double timeoutS = 600.0;  // how long one request waits for its answer

  // The key sent: the one typed, else $GLANCE_API_KEY ("" for none).
  QString effectiveKey() const;
};

// core/remote's one-line message for the GUI: without the "--endpoint " it starts with for the
// CLI (the dialog's field is named "Endpoint URL").
QString RemoteMessage(const char* what);

// The choice of the last run (the key only when it was remembered).
RemoteEndpointChoice LoadRemoteEndpointChoice();
// Keeps `c` for the next run; the key only with rememberKey, and a key remembered before is
// removed from the file when it is not.
void SaveRemoteEndpointChoice(const RemoteEndpointChoice& c);

}  // namespace glance::ui
