#pragma once
// What the user chose for the local server (File ▸ Local server panel…): where it listens, the
// API key and the web pages from other sites it answers. Kept in the settings file (SettingsFile::App(), "server/…") for the
// next start; the engine thread turns it into server::ServerOptions (ToServerOptions). Also the
// metatypes the server's request log crosses threads with.
#include <QMetaType>
#include <QString>

#include "server/server_options.h"

namespace glance::ui {

struct LocalServerConfig {
  QString host = QStringLiteral("127.0.0.1");  // loopback: this computer's programs only
  int port = 8080;                             // 0 = any free port
  QString apiKey;                              // empty: no key asked for
  QString origins;                             // "https://a.example, https://b.example" or "*"

  static LocalServerConfig Load();  // the saved choice, defaults where none
  void Save() const;
  // Throws glance::Error naming what is wrong (an origin that is not scheme://host[:port]).
  server::ServerOptions ToServerOptions() const;
  // False for an address other machines can reach (0.0.0.0, a LAN address).
  bool loopbackOnly() const;
};

// A new random API key ("glance-" + 32 letters and digits, from the system's secure source).
QString GenerateApiKey();

}  // namespace glance::ui

Q_DECLARE_METATYPE(glance::ui::LocalServerConfig)
Q_DECLARE_METATYPE(glance::server::ServedRequest)
