// glance-render-icon SVG OUT_DIR SIZE... : renders the app icon to OUT_DIR/<size>.png with Qt's
// SVG renderer, at build time, so the PNG sizes always match the committed SVG.
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <cstdio>

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");  // no display needed at build time
  QGuiApplication app(argc, argv);
  const QStringList args = QCoreApplication::arguments();
  if (args.size() < 4) {
    std::fprintf(stderr, "usage: glance-render-icon ICON.svg OUT_DIR SIZE...\n");
    return 2;
  }
  QSvgRenderer svg(args.at(1));
  if (!svg.isValid()) {
    std::fprintf(stderr, "glance-render-icon: cannot read SVG %s\n", qPrintable(args.at(1)));
    return 1;
  }
  for (int i = 3; i < args.size(); ++i) {
    bool ok = false;
    const int size = args.at(i).toInt(&ok);
    if (!ok || size < 1 || size > 4096) {
      std::fprintf(stderr, "glance-render-icon: bad size '%s'\n", qPrintable(args.at(i)));
      return 2;
    }
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    svg.render(&painter);
    painter.end();
    const QString out = args.at(2) + QStringLiteral("/%1.png").arg(size);
    if (!image.save(out)) {
      std::fprintf(stderr, "glance-render-icon: cannot write %s\n", qPrintable(out));
      return 1;
    }
  }
  return 0;
}
