// The image drop area: synthetic drops of a file URL, image data and a non-image file, and
// the processed-size line. No engine needed.
#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QMimeData>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include "ui/image_drop_area.h"

using glance::ui::ImageDropArea;

namespace {

const QString kDemoImage = QStringLiteral(GLANCE_SOURCE_RESOURCES "/demo-image.png");

bool Drop(QWidget* target, QMimeData* mime) {
  if (!target->isVisible()) {
    target->show();
    if (!QTest::qWaitForWindowExposed(target)) return false;
  }
  // Like a real drag: the widget must accept the enter before it gets the drop.
  QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(target, &enter);
  if (!enter.isAccepted()) return false;
  QDropEvent event(QPointF(5, 5), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(target, &event);
  return event.isAccepted();
}

}  // namespace

class TestImageDropArea : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void dropsAnImageFile() {
    ImageDropArea area;
    QSignalSpy files(&area, &ImageDropArea::imageFileChosen);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(kDemoImage)});
    QVERIFY(Drop(&area, &mime));
    QCOMPARE(files.count(), 1);
    QCOMPARE(files.at(0).at(0).toString(), kDemoImage);
    QVERIFY(area.message().isEmpty());
  }

  void dropsImageData() {
    ImageDropArea area;
    QSignalSpy pasted(&area, &ImageDropArea::imagePasted);
    QMimeData mime;
    QImage img(32, 16, QImage::Format_RGB32);
    img.fill(Qt::red);
    mime.setImageData(img);
    QVERIFY(Drop(&area, &mime));
    QCOMPARE(pasted.count(), 1);
    QCOMPARE(qvariant_cast<QImage>(pasted.at(0).at(0)).size(), QSize(32, 16));
  }

  void nonImageShowsInlineMessage() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("notes.txt"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not an image");
    f.close();
    ImageDropArea area;
    QSignalSpy files(&area, &ImageDropArea::imageFileChosen);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QVERIFY(!Drop(&area, &mime));
    QCOMPARE(files.count(), 0);
    QVERIFY(area.message().contains(QStringLiteral("notes.txt")));

    QMimeData text;  // plain text is not an image either (a paste of it gets a message)
    text.setText(QStringLiteral("hello"));
    QVERIFY(!Drop(&area, &text));
    QVERIFY(!area.handleMime(&text));
    QVERIFY(area.message().contains(QStringLiteral("not an image")));

    QMimeData good;  // a good drop clears the message
    good.setUrls({QUrl::fromLocalFile(kDemoImage)});
    QVERIFY(Drop(&area, &good));
    QVERIFY(area.message().isEmpty());
  }

  void showsProcessedSizeAndGrid() {
    ImageDropArea area;
    glance::ImageInfo info;
    info.path = kDemoImage.toStdString();
    info.source_w = 640;
    info.source_h = 480;
    info.resized_w = 224;
    info.resized_h = 224;
    info.grid_w = 7;
    info.grid_h = 7;
    info.mode = glance::ImageMode::kFast;
    area.setImageInfo(info, QImage(kDemoImage));
    const QString text = area.infoText();
    QVERIFY2(text.contains(QStringLiteral("224\u00D7224 \u2192 7\u00D77 = 49 tokens")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("640\u00D7480")));
  }

  // The name the user knows (not a kept copy's hash name), elided so it cannot widen the dock.
  void imageNameIsTheUsersAndFits() {
    ImageDropArea area;
    glance::ImageInfo info;
    info.path = "/home/u/.local/share/glance/images/c7cb4c3d398ee96ec99a8d754b420cdf0354046f0aa1.png";
    info.resized_w = info.resized_h = 224;
    info.grid_w = info.grid_h = 7;
    area.setImageInfo(info, QImage(kDemoImage), QStringLiteral("holiday.jpg"));
    QVERIFY2(area.infoText().contains(QStringLiteral("holiday.jpg")), qPrintable(area.infoText()));
    area.setImageInfo(info, QImage(kDemoImage));
    QVERIFY2(!area.infoText().contains(QStringLiteral("c7cb4c3d398ee96ec99a8d754b420cdf0354046f0aa1")), qPrintable(area.infoText()));
    QVERIFY(area.infoText().contains(QStringLiteral("\u2026")));  // elided in the middle
  }

  // Open image starts in a folder that exists: a missing Pictures folder was taken as a file
  // name ("Pictures" typed in the dialog's name field).
  void openDialogStartsInAFolderThatExists() {
    QTemporaryDir dir;
    const QString missing = dir.filePath(QStringLiteral("Pictures"));
    QCOMPARE(glance::ui::ImageOpenFolder(QString(), missing), QDir::homePath());
    QCOMPARE(glance::ui::ImageOpenFolder(dir.filePath(QStringLiteral("gone")), missing), QDir::homePath());
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("Pictures")));
    QCOMPARE(glance::ui::ImageOpenFolder(QString(), missing), missing);          // control: now it is there
    QCOMPARE(glance::ui::ImageOpenFolder(dir.path(), missing), dir.path());     // the last folder first
  }
};

QTEST_MAIN(TestImageDropArea)
#include "test_image_drop_area.moc"
