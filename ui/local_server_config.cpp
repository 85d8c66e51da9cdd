#include "ui/local_server_config.h"

#include <QRandomGenerator>

#include "server/request_source.h"
#include "ui/settings_file.h"

namespace glance::ui {

LocalServerConfig LocalServerConfig::Load() {
  const std::shared_ptr<SettingsFile> s = SettingsFile::App();
  LocalServerConfig c;
  c.host = s->value(QStringLiteral("server/host"), c.host).toString().trimmed();
  if (c.host.isEmpty()) c.host = LocalServerConfig().host;
  c.port = s->value(QStringLiteral("server/port"), c.port).toInt();
  if (c.port < 0 || c.port > 65535) c.port = LocalServerConfig().port;
  c.apiKey = s->value(QStringLiteral("server/api_key")).toString();
  c.origins = s->value(QStringLiteral("server/origins")).toString();
  return c;
}

void LocalServerConfig::Save() const {
  const std::shared_ptr<SettingsFile> s = SettingsFile::App();
  s->setValue(QStringLiteral("server/host"), host);
  s->setValue(QStringLiteral("server/port"), port);
  s->setValue(QStringLiteral("server/api_key"), apiKey);
  s->setValue(QStringLiteral("server/origins"), origins);
}

server::ServerOptions LocalServerConfig::ToServerOptions() const {
  server::ServerOptions o;
  o.host = host.trimmed().toStdString();
  o.port = port;
  o.api_key = apiKey.trimmed().toStdString();
  o.allowed_origins = server::ParseAllowedOrigins(origins.toStdString());
  return o;
}

bool LocalServerConfig::loopbackOnly() const { return server::IsLoopbackHost(host.trimmed().toStdString()); }

QString GenerateApiKey() {
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  QString key = QStringLiteral("glance-");
  QRandomGenerator* random = QRandomGenerator::system();
  for (int i = 0; i < 32; ++i) key += QLatin1Char(kAlphabet[random->bounded(62)]);
  return key;
}

}  // namespace glance::ui
