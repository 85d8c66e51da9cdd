// The folder view's caption runs through an OpenAI-compatible endpoint (issue 33): the caption
// dialog's "Run on: an OpenAI-compatible endpoint" with a `glance-cli serve` of the demo model on
// loopback gives the sidecars a run on this computer gives (greedy preset), with no model loaded
// in this window; the API key reaches the server and stays out of the settings file unless
// "Remember" is ticked; a refused key, a dead server and a bad URL are one line in the dialog,
// which stays open; a key refused mid-run stops the run in one line; Stop during a run keeps
// what came, and the rerun captions the rest, each image once. Servers on loopback only: the
// real glance-cli serve as a child process, and small stubs in this test.
#include <httplib.h>

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <atomic>
#include <cmath>
#include <functional>
#include <mutex>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ui/caption_preset_store.h"
#include "ui/folder_caption_dialog.h"
#include "ui/folder_insight_bar.h"
#include "ui/folder_model.h"
#include "ui/folder_view.h"
#include "ui/main_window.h"
#include "ui/settings_file.h"

using glance::ui::FolderCaptionChoice;
using glance::ui::FolderCaptionDialog;
using glance::ui::FolderImageState;
using glance::ui::FolderWindow;
using glance::ui::MainWindow;

namespace {

constexpr int kTimeoutMs = 180000;
const QString kScenes = QStringLiteral(GLANCE_SOURCE_RESOURCES "/demo-scenes");

QByteArray ReadText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

void CopyScenes(const QString& dir, int first, int count) {
  for (int i = first; i < first + count; ++i) {
    const QString name = QStringLiteral("scene-%1.png").arg(i, 3, 10, QLatin1Char('0'));
    QVERIFY(QFile::copy(kScenes + QLatin1Char('/') + name, dir + QLatin1Char('/') + name));
  }
}

int Sidecars(const QString& dir) {
  return static_cast<int>(QDir(dir).entryList({QStringLiteral("*.txt")}, QDir::Files).size());
}

// `glance-cli serve --port 0` with the demo model; its URL once it listens ("" if it did not).
class Serve {
 public:
  explicit Serve(const QStringList& extra = {}) {
    proc_.setProgram(QStringLiteral(GLANCE_BINARY_DIR "/app/glance-cli"));
    proc_.setArguments(QStringList{QStringLiteral("serve"), QStringLiteral("--port"), QStringLiteral("0"),
                                   QStringLiteral("--threads"), QStringLiteral("2")} + extra);
    proc_.setReadChannel(QProcess::StandardError);
    proc_.start();
    QByteArray err;
    const QRegularExpression listening(QStringLiteral("http://127\\.0\\.0\\.1:(\\d+)/v1"));
    for (int i = 0; i < 1200 && proc_.state() != QProcess::NotRunning; ++i) {
      proc_.waitForReadyRead(100);
      err += proc_.readAllStandardError();
      const auto m = listening.match(QString::fromUtf8(err));
      if (m.hasMatch() && err.contains("/v1 (")) {
        url_ = QStringLiteral("http://127.0.0.1:") + m.captured(1);
        return;
      }
    }
    qWarning("glance-cli serve did not start: %s", err.constData());
  }
  ~Serve() {
    proc_.kill();
    proc_.waitForFinished(10000);
  }
  QString url() const { return url_; }

 private:
  QProcess proc_;
  QString url_;
};

// An OpenAI-shaped stub on a free loopback port: /v1/models lists "stub-model" (or answers
// `modelsStatus`), each chat request is answered by `chat` (its number from 1).
class Stub {
 public:
  using Chat = std::function<void(int, httplib::Response&)>;
  Stub(Chat chat, int modelsStatus = 200) : chat_(std::move(chat)) {
    server_.Get("/v1/models", [modelsStatus](const httplib::Request&, httplib::Response& res) {
      res.status = modelsStatus;
      if (modelsStatus == 200)
        res.set_content(R"({"object":"list","data":[{"id":"stub-model","object":"model"}]})", "application/json");
      else
        res.set_content(R"({"error":{"message":"invalid API key"}})", "application/json");
    });
    server_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard lock(m_);
        lastBody_ = req.body;
      }
      chat_(++chats_, res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Stub() {
    server_.stop();
    thread_.join();
  }
  QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port_); }
  int chats() const { return chats_.load(); }
  std::string lastBody() {
    std::lock_guard lock(m_);
    return lastBody_;
  }

 private:
  Chat chat_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> chats_{0};
  std::mutex m_;
  std::string lastBody_;
};

std::string Answer(const std::string& text) {
  return R"({"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":")" +
         text + R"("},"finish_reason":"stop"}]})";
}

// A loopback port nothing listens on.
int ClosedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// The dialog's endpoint fields filled as a user would.
void FillEndpoint(FolderCaptionDialog& d, const QString& url, const QString& key = {}, int concurrency = 1,
                  bool remember = false) {
  auto* runOn = d.findChild<QComboBox*>(QStringLiteral("runOn"));
  QVERIFY(runOn);
  runOn->setCurrentIndex(runOn->findData(true));
  d.findChild<QLineEdit*>(QStringLiteral("endpointUrl"))->setText(url);
  d.findChild<QLineEdit*>(QStringLiteral("apiKey"))->setText(key);
  d.findChild<QSpinBox*>(QStringLiteral("concurrency"))->setValue(concurrency);
  d.findChild<QCheckBox*>(QStringLiteral("rememberKey"))->setChecked(remember);
}

// Start pressed: true when the dialog closed accepted, false when it stayed open (its line then in *problem).
bool PressStart(FolderCaptionDialog& d, QString* problem) {
  d.show();
  d.accept();
  if (!QTest::qWaitFor([&] { return !d.isCheckingEndpoint(); }, 60000)) return false;
  *problem = d.problem();
  return d.result() == QDialog::Accepted;
}

class TestFolderViewRemote : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void endpointRunGivesTheLocalCaptionsWithoutAModelHere() {
    QTemporaryDir local, remote, cache;
    CopyScenes(local.path(), 10, 6);
    CopyScenes(remote.path(), 10, 6);
    // The reference: a run on this computer, with the greedy "short" preset.
    MainWindow window;
    QSignalSpy ready(&window, &MainWindow::modelReady);
    window.loadDefaultModel();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, kTimeoutMs);
    FolderWindow here(window.worker(), [&] { return window.generateOptions(); },
                      [&] { return window.isModelLoaded(); }, nullptr, cache.path());
    QVERIFY(here.openFolder(local.path(), false));
    FolderCaptionChoice choice;
    choice.which = FolderCaptionChoice::Which::kAll;
    choice.preset = QStringLiteral("short");
    QSignalSpy hereDone(&here, &FolderWindow::captionFinished);
    QVERIFY(here.startCaption(choice));
    QTRY_COMPARE_WITH_TIMEOUT(hereDone.count(), 1, kTimeoutMs);
    QCOMPARE(Sidecars(local.path()), 6);

    // Through a glance-cli serve that wants a key, from a window with no model loaded.
    Serve serve({QStringLiteral("--api-key"), QStringLiteral("sekrit")});
    QVERIFY(!serve.url().isEmpty());
    MainWindow bare;
    QVERIFY(!bare.isModelLoaded());
    FolderWindow view(bare.worker(), [&] { return bare.generateOptions(); }, [&] { return bare.isModelLoaded(); },
                      nullptr, cache.path());
    QVERIFY(view.openFolder(remote.path(), false));
    // A run on this computer is refused without a model; through the endpoint it is not.
    QVERIFY(!view.startCaption(choice));
    QVERIFY2(view.statusText().contains(QStringLiteral("Load a model")), qPrintable(view.statusText()));

    FolderCaptionDialog dialog(view.lastChoice(), 0, &view.presets(), &view);
    dialog.choosePreset(QStringLiteral("short"));
    dialog.findChild<QComboBox*>(QStringLiteral("which"))->setCurrentIndex(1);  // the whole folder
    // The wrong key first: one line in the dialog, which stays open.
    FillEndpoint(dialog, serve.url() + QStringLiteral("/v1"), QStringLiteral("wrong"), 4);
    QString problem;
    QVERIFY(!PressStart(dialog, &problem));
    QVERIFY2(problem.contains(QStringLiteral("HTTP 401")) && !problem.contains(QLatin1Char('\n')), qPrintable(problem));
    FillEndpoint(dialog, serve.url() + QStringLiteral("/v1"), QStringLiteral("sekrit"), 4);
    QVERIFY2(PressStart(dialog, &problem), qPrintable(problem));
    const FolderCaptionChoice asked = dialog.choice();
    QVERIFY(asked.remote.on);
    QCOMPARE(asked.remote.concurrency, 4);

    QSignalSpy done(&view, &FolderWindow::captionFinished);
    QStringList lines;
    QTimer watch;
    connect(&watch, &QTimer::timeout, this, [&] { lines << view.statusText(); });
    watch.start(5);
    QVERIFY(view.startCaption(asked));
    QVERIFY2(view.statusText().endsWith(QStringLiteral("through ") + serve.url() + QStringLiteral("/v1")),
             qPrintable(view.statusText()));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
    watch.stop();
    QCOMPARE(done.at(0).at(0).toInt(), 6);  // captioned
    QCOMPARE(done.at(0).at(2).toBool(), false);  // not stopped
    QVERIFY2(view.statusText().startsWith(QStringLiteral("Done: 6 captioned.")), qPrintable(view.statusText()));
    // Progress with the ETA, saying where the images go.
    QVERIFY2(lines.join(QLatin1Char('|')).contains(QRegularExpression(QStringLiteral("Captioned \\d of 6 through http://127\\.0\\.0\\.1:\\d+/v1 \u00B7 about \\d+ s left"))),
             qPrintable(lines.join(QLatin1Char('|'))));
    for (int i = 10; i < 16; ++i) {
      const QString txt = QStringLiteral("/scene-%1.txt").arg(i, 3, 10, QLatin1Char('0'));
      const QByteArray mine = ReadText(local.path() + txt);
      QVERIFY2(!mine.isEmpty() && mine != "<missing>", qPrintable(txt));
      QCOMPARE(ReadText(remote.path() + txt), mine);
    }
    QCOMPARE(view.model()->count(FolderImageState::kCaptioned), 6);

    // Where the model looked for each word, and the timing: from the run here, and from the
    // Glance server's "glance" answer field — the same words and maps.
    for (int i = 10; i < 16; ++i) {
      const QString name = QStringLiteral("scene-%1.png").arg(i, 3, 10, QLatin1Char('0'));
      const glance::CaptionInsight* mine = here.insight(name);
      const glance::CaptionInsight* theirs = view.insight(name);
      QVERIFY2(mine && theirs, qPrintable(name));
      QVERIFY(!mine->words.empty());
      QCOMPARE(theirs->words.size(), mine->words.size());
      for (size_t w = 0; w < mine->words.size(); ++w) {
        QCOMPARE(theirs->words[w].text, mine->words[w].text);
        QCOMPARE(theirs->words[w].grid_h, mine->words[w].grid_h);
        QCOMPARE(theirs->words[w].grid_w, mine->words[w].grid_w);
        QCOMPARE(theirs->words[w].map.size(), mine->words[w].map.size());
        QVERIFY(mine->words[w].grid_h > 0 && !mine->words[w].map.empty());
        for (size_t c = 0; c < mine->words[w].map.size(); ++c)
          QVERIFY2(std::fabs(theirs->words[w].map[c] - mine->words[w].map[c]) < 1e-4f, qPrintable(name));
      }
      QVERIFY(theirs->stats.generated_tokens > 0 && theirs->stats.total_s > 0);
    }
    // Shown under the image: the words in a box, the timing saying where it ran; a word paints its map.
    QVERIFY(view.select(QStringLiteral("scene-012.png")));
    glance::ui::FolderInsightBar* bar = view.insightBar();
    QVERIFY(!bar->isHidden());
    QVERIFY2(bar->timingText().contains(QStringLiteral("(on ") + serve.url()), qPrintable(bar->timingText()));
    QVERIFY(bar->words()->count() > 1);
    auto* large = view.findChild<QLabel*>(QStringLiteral("largeImage"));
    QVERIFY(large);
    const QImage plain = large->pixmap().toImage();
    bar->words()->setCurrentIndex(1);
    QVERIFY(large->pixmap().toImage() != plain);
    QVERIFY(here.select(QStringLiteral("scene-012.png")));
    QVERIFY2(here.insightBar()->timingText().endsWith(QStringLiteral("(here)")), qPrintable(here.insightBar()->timingText()));

    // The key was not remembered: not in the settings file; the rest is, for the next dialog.
    const auto settings = glance::ui::SettingsFile::App();
    QVERIFY(settings->save());
    QVERIFY(!ReadText(settings->path()).contains("sekrit"));
    FolderWindow next(bare.worker(), {}, {}, nullptr, cache.path());
    QVERIFY(next.lastChoice().remote.on);
    QCOMPARE(next.lastChoice().remote.url, serve.url() + QStringLiteral("/v1"));
    QCOMPARE(next.lastChoice().remote.concurrency, 4);
    QCOMPARE(next.lastChoice().remote.apiKey, QString());
    // Ticked, it is kept (in plain text, as the dialog says).
    FolderCaptionChoice again = asked;
    again.which = FolderCaptionChoice::Which::kUncaptioned;
    again.remote.rememberKey = true;
    view.startCaption(again);  // nothing left to caption; the choice is still what counts
    QVERIFY(settings->save());
    QVERIFY(!ReadText(settings->path()).contains("sekrit"));  // not started: not saved
    again.which = FolderCaptionChoice::Which::kAll;
    again.existing = QStringLiteral("skip");
    QVERIFY(view.startCaption(again));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, kTimeoutMs);
    QVERIFY(settings->save());
    QVERIFY(ReadText(settings->path()).contains("sekrit"));
    QCOMPARE(FolderWindow(bare.worker(), {}, {}, nullptr, cache.path()).lastChoice().remote.apiKey, QStringLiteral("sekrit"));
    auto* dialogNote = dialog.findChild<QLabel*>(QStringLiteral("keyNote"));
    QVERIFY(dialogNote && dialogNote->text().contains(QStringLiteral("plain text")));
  }

  // Each field of the dialog, the endpoint's included, has its own Alt+letter.
  void everyAccessKeyOfTheDialogIsItsOwn() {
    FolderCaptionChoice c;
    c.remote.on = true;
    glance::ui::CaptionPresetStore presets;
    FolderCaptionDialog dialog(c, 0, &presets);
    QMap<QChar, QString> seen;
    QStringList texts;
    for (auto* l : dialog.findChildren<QLabel*>()) texts << l->text();
    for (auto* b : dialog.findChildren<QAbstractButton*>()) texts << b->text();
    for (const QString& t : texts) {
      const qsizetype at = t.indexOf(QLatin1Char('&'));
      if (at < 0 || at + 1 >= t.size() || t.at(at + 1) == QLatin1Char('&')) continue;
      const QChar key = t.at(at + 1).toLower();
      QVERIFY2(!seen.contains(key), qPrintable(QStringLiteral("Alt+%1: '%2' and '%3'").arg(key, seen.value(key), t)));
      seen.insert(key, t);
    }
    QVERIFY(seen.contains(QLatin1Char('k')));  // API key
  }

  void deadServerAndBadUrlAreOneLineInTheDialog() {
    QTemporaryDir dir, cache;
    CopyScenes(dir.path(), 0, 1);
    MainWindow bare;
    FolderWindow view(bare.worker(), {}, {}, nullptr, cache.path());
    QVERIFY(view.openFolder(dir.path(), false));
    FolderCaptionDialog dialog(view.lastChoice(), 0, &view.presets(), &view);
    QString problem;
    FillEndpoint(dialog, QStringLiteral("http://127.0.0.1:%1").arg(ClosedPort()));
    QVERIFY(!PressStart(dialog, &problem));
    QVERIFY2(problem.contains(QStringLiteral("cannot reach the server")), qPrintable(problem));
    FillEndpoint(dialog, QStringLiteral("localhost:8080"));
    QVERIFY(!PressStart(dialog, &problem));
    QVERIFY2(problem.startsWith(QStringLiteral("Endpoint URL:")) && problem.contains(QStringLiteral("http://")),
             qPrintable(problem));
    // A refused key on the model list (no key given): one line, the dialog open, no chat sent.
    Stub refusing([](int, httplib::Response& res) { res.set_content(Answer("x"), "application/json"); }, 401);
    FillEndpoint(dialog, refusing.url());
    QVERIFY(!PressStart(dialog, &problem));
    QVERIFY2(problem.contains(QStringLiteral("HTTP 401")) && problem.contains(QStringLiteral("API key")), qPrintable(problem));
    QCOMPARE(refusing.chats(), 0);
    QVERIFY(dialog.isVisible());
  }

  void keyRefusedMidRunStopsItInOneLine() {
    QTemporaryDir dir, cache;
    CopyScenes(dir.path(), 0, 4);
    Stub stub([](int, httplib::Response& res) {
      res.status = 401;
      res.set_content(R"({"error":{"message":"invalid API key"}})", "application/json");
    });
    MainWindow bare;
    FolderWindow view(bare.worker(), {}, {}, nullptr, cache.path());
    QVERIFY(view.openFolder(dir.path(), false));
    FolderCaptionChoice c;
    c.which = FolderCaptionChoice::Which::kAll;
    c.remote.on = true;
    c.remote.url = stub.url();
    QSignalSpy done(&view, &FolderWindow::captionFinished);
    QVERIFY(view.startCaption(c));
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
    const QString line = view.statusText();
    QVERIFY2(line.startsWith(QStringLiteral("Stopped after 0 captioned")) && line.contains(QStringLiteral("HTTP 401")) &&
                 !line.contains(QLatin1Char('\n')),
             qPrintable(line));
    QCOMPARE(stub.chats(), 1);  // neither retried nor sent for the next images
    QCOMPARE(Sidecars(dir.path()), 0);
    QCOMPARE(view.model()->count(FolderImageState::kFailed), 0);  // not the images' fault
  }

  void stopKeepsWhatCameAndTheRerunFinishes() {
    QTemporaryDir dir, cache;
    constexpr int kImages = 16;
    CopyScenes(dir.path(), 40, kImages);
    Stub slow([](int n, httplib::Response& res) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      res.set_content(Answer("caption " + std::to_string(n)), "application/json");
    });
    MainWindow bare;
    FolderWindow view(bare.worker(), {}, {}, nullptr, cache.path());
    QVERIFY(view.openFolder(dir.path(), false));
    FolderCaptionChoice c;
    c.which = FolderCaptionChoice::Which::kUncaptioned;
    c.remote.on = true;
    c.remote.url = slow.url();
    c.remote.concurrency = 2;
    QSignalSpy done(&view, &FolderWindow::captionFinished);
    QVERIFY(view.startCaption(c));
    QString progress;
    QTRY_VERIFY_WITH_TIMEOUT(Sidecars(dir.path()) >= 3 &&
                                 (progress = view.statusText()).contains(QStringLiteral("left")),
                             kTimeoutMs);
    QVERIFY2(progress.contains(QStringLiteral("Captioning")), qPrintable(progress));  // progress with the ETA
    view.stopCaption();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kTimeoutMs);
    QCOMPARE(done.at(0).at(2).toBool(), true);
    const int first = Sidecars(dir.path());
    QVERIFY2(first < kImages, "the run ended before Stop: give it more images");
    QCOMPARE(done.at(0).at(0).toInt(), first);  // every answer that came is written
    QCOMPARE(view.model()->count(FolderImageState::kCaptioned), first);
    // The rerun captions the rest. Exactly once is about what is written: a request that got no
    // answer (seen here about once in 20 runs on this loaded machine: one try unanswered, or
    // stopped in its pause before the next) is asked again by a later run, so allow one more run.
    int captioned = first;
    for (int run = 1; run <= 2 && Sidecars(dir.path()) < kImages; ++run) {
      QVERIFY(view.startCaption(c));
      QTRY_COMPARE_WITH_TIMEOUT(done.count(), run + 1, kTimeoutMs);
      captioned += done.at(run).at(0).toInt();
    }
    QCOMPARE(Sidecars(dir.path()), kImages);
    QCOMPARE(captioned, kImages);  // each image written once across the runs
    QVERIFY2(slow.chats() <= kImages + 2, qPrintable(QString::number(slow.chats())));
    // Not a Glance server (its models are not owned by "glance"): no "glance" field asked, none shown.
    QVERIFY(slow.lastBody().find("\"glance\"") == std::string::npos);
    QVERIFY(view.insight(QStringLiteral("scene-040.png")) == nullptr);
    QVERIFY(view.select(QStringLiteral("scene-040.png")));
    QVERIFY(view.insightBar()->isHidden());
  }
};

}  // namespace

QTEST_MAIN(TestFolderViewRemote)
#include "test_folder_view_remote.moc"
