#include "ui/remote_endpoint.h"

#include <QtGlobal>
#include <algorithm>

#include "ui/settings_file.h"

namespace glance::ui {

namespace {

const QString kOn = QStringLiteral("folder/remote_on");
const QString kUrl = QStringLiteral("folder/remote_url");
const QString kKey = QStringLiteral("folder/remote_api_key");  // only when remembered
const QString kModel = QStringLiteral("folder/remote_model");
const QString kConcurrency = QStringLiteral("folder/remote_concurrency");
const QString kTimeout = QStringLiteral("folder/remote_timeout_s");

}  // namespace

QString RemoteEndpointChoice::effectiveKey() const {
  return apiKey.isEmpty() ? qEnvironmentVariable("GLANCE_API_KEY") : apiKey;
}

QString RemoteMessage(const char* what) {
  QString m = QString::fromUtf8(what);
  if (m.startsWith(QStringLiteral("--endpoint "))) m.remove(0, 11);
  return m;
}

RemoteEndpointChoice LoadRemoteEndpointChoice() {
  const auto s = SettingsFile::App();
  RemoteEndpointChoice c;
  c.on = s->value(kOn, false).toBool();
  c.url = s->value(kUrl).toString();
  c.rememberKey = s->contains(kKey);
  c.apiKey = s->value(kKey).toString();
  c.model = s->value(kModel).toString();
  c.concurrency = std::clamp(s->value(kConcurrency, 1).toInt(), 1, 64);
  const double timeout = s->value(kTimeout, 600.0).toDouble();
  c.timeoutS = timeout > 0 && timeout <= 86400 ? timeout : 600.0;
  return c;
}

void SaveRemoteEndpointChoice(const RemoteEndpointChoice& c) {
  const auto s = SettingsFile::App();
  s->setValue(kOn, c.on);
  s->setValue(kUrl, c.url);
  s->setValue(kModel, c.model);
  s->setValue(kConcurrency, c.concurrency);
  s->setValue(kTimeout, c.timeoutS);
  if (c.rememberKey && !c.apiKey.isEmpty()) s->setValue(kKey, c.apiKey);
  else s->remove(kKey);
}

}  // namespace glance::ui
