#include "ui/transcript_document.h"

#include <QCoreApplication>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTextFrame>
#include <QTextTable>
#include <algorithm>

#include "ui/code_highlight.h"

namespace glance::ui {
namespace {

const QString kScheme = QStringLiteral("glance");

QUrl ActionUrl(const QString& action, int message, int index) {
  QUrl url;
  url.setScheme(kScheme);
  url.setPath(index < 0 ? QStringLiteral("%1/%2").arg(action).arg(message)
                        : QStringLiteral("%1/%2/%3").arg(action).arg(message).arg(index));
  return url;
}

QString Tr(const char* text) { return QCoreApplication::translate("TranscriptDocument", text); }

bool IsCodeBlock(const QTextBlock& block) {
  // Qt's Markdown reader marks every line of a fenced or indented code block so.
  return block.blockFormat().hasProperty(QTextFormat::BlockCodeLanguage);
}

// A Markdown image would make the view ask for its file or URL: it becomes "[image: alt]".
void ReplaceImages(QTextDocument& doc, const QPalette& palette) {
  struct Found {
    int position, length;
    QString alt;
  };
  std::vector<Found> found;
  for (QTextBlock block = doc.begin(); block.isValid(); block = block.next())
    for (auto it = block.begin(); !it.atEnd(); ++it) {
      const QTextFragment fragment = it.fragment();
      if (!fragment.charFormat().isImageFormat()) continue;
      const QTextImageFormat image = fragment.charFormat().toImageFormat();
      QString alt = image.property(QTextFormat::ImageAltText).toString();
      if (alt.isEmpty()) alt = image.name();
      found.push_back({fragment.position(), fragment.length(), alt});
    }
  QTextCharFormat text;
  text.setForeground(palette.color(QPalette::PlaceholderText));
  for (auto it = found.rbegin(); it != found.rend(); ++it) {  // from the end: positions hold
    QTextCursor c(&doc);
    c.setPosition(it->position);
    c.setPosition(it->position + it->length, QTextCursor::KeepAnchor);
    c.insertText(Tr("[image: %1]").arg(it->alt), text);
  }
}

void StyleTables(QTextFrame* frame, const QPalette& palette) {
  for (QTextFrame* child : frame->childFrames()) {
    if (auto* table = qobject_cast<QTextTable*>(child)) {
      QTextTableFormat format = table->format();
      format.setBorder(1);
      format.setBorderStyle(QTextFrameFormat::BorderStyle_Solid);
      format.setBorderBrush(palette.color(QPalette::Mid));
      format.setBorderCollapse(true);
      format.setCellPadding(4);
      format.setCellSpacing(0);
      table->setFormat(format);
    }
    StyleTables(child, palette);
  }
}

// Colours a code block's comments, strings, numbers and keywords (code_highlight.h); its lines
// are consecutive blocks, so offsets in their joined text are offsets from its first position.
void ColourCode(QTextDocument& doc, int first, const QString& code, const QString& language,
                const QPalette& palette) {
  for (const CodeToken& token : HighlightCode(code, language)) {
    QTextCharFormat format;
    format.setForeground(CodeTokenColor(token.kind, palette));
    if (token.kind == CodeTokenKind::kComment) format.setFontItalic(true);
    QTextCursor c(&doc);
    c.setPosition(first + token.start);
    c.setPosition(first + token.start + token.length, QTextCursor::KeepAnchor);
    c.mergeCharFormat(format);
  }
}

// Shades and colours each code block and puts a "Copy code" link under it; returns the blocks'
// text.
CodeBlocks MarkCodeBlocks(QTextDocument& doc, int message, const QPalette& palette) {
  CodeBlocks code;
  std::vector<int> firstPositions;  // where each code block's first line starts
  QStringList languages;            // each code block's fence language ("" none)
  std::vector<int> lastBlockEnds;  // where each code block's last line ends
  const QColor shade = MixColors(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.08f);
  bool inCode = false;
  for (QTextBlock block = doc.begin(); block.isValid(); block = block.next()) {
    if (!IsCodeBlock(block)) {
      inCode = false;
      continue;
    }
    QTextBlockFormat format = block.blockFormat();
    format.setBackground(shade);
    QTextCursor(block).setBlockFormat(format);
    if (inCode) {
      code.back() += QLatin1Char('\n') + block.text();
      lastBlockEnds.back() = block.position() + block.length() - 1;
    } else {
      code.push_back(block.text());
      lastBlockEnds.push_back(block.position() + block.length() - 1);
      firstPositions.push_back(block.position());
      languages << format.stringProperty(QTextFormat::BlockCodeLanguage);
    }
    inCode = true;
  }
  for (qsizetype k = 0; k < code.size(); ++k)
    ColourCode(doc, firstPositions[static_cast<size_t>(k)], code[k], languages[k], palette);
  QTextCharFormat link;
  link.setAnchor(true);
  link.setForeground(palette.color(QPalette::Link));
  link.setFontUnderline(true);
  for (int k = static_cast<int>(lastBlockEnds.size()) - 1; k >= 0; --k) {
    QTextCursor c(&doc);
    c.setPosition(lastBlockEnds[static_cast<size_t>(k)]);
    c.insertBlock(QTextBlockFormat(), QTextCharFormat());
    link.setAnchorHref(CopyCodeUrl(message, k).toString());
    link.setToolTip(Tr("Copy this code block"));
    c.insertText(Tr("Copy code"), link);
  }
  return code;
}

}  // namespace

QColor MixColors(const QColor& a, const QColor& b, float t) {
  return QColor::fromRgbF(a.redF() * (1 - t) + b.redF() * t, a.greenF() * (1 - t) + b.greenF() * t,
                          a.blueF() * (1 - t) + b.blueF() * t);
}

QUrl CopyCodeUrl(int message, int block) { return ActionUrl(QStringLiteral("copy-code"), message, block); }
QUrl CopyAnswerUrl(int message) { return ActionUrl(QStringLiteral("copy-answer"), message, -1); }
QUrl ImageUrl(int message, int image) { return ActionUrl(QStringLiteral("image"), message, image); }

TranscriptLink ParseTranscriptLink(const QUrl& url) {
  TranscriptLink link;
  const QString scheme = url.scheme().toLower();
  if (scheme == QStringLiteral("http") || scheme == QStringLiteral("https") ||
      scheme == QStringLiteral("mailto")) {
    link.kind = TranscriptLink::kExternal;
    return link;
  }
  if (scheme != kScheme) return link;
  const QStringList parts = url.path().split(QLatin1Char('/'));
  bool ok1 = false, ok2 = true;
  const int message = parts.size() >= 2 ? parts[1].toInt(&ok1) : -1;
  const int index = parts.size() >= 3 ? parts[2].toInt(&ok2) : -1;
  if (!ok1 || !ok2 || message < 0) return link;
  if (parts[0] == QStringLiteral("copy-code") && parts.size() == 3 && index >= 0)
    link.kind = TranscriptLink::kCopyCode;
  else if (parts[0] == QStringLiteral("copy-answer") && parts.size() == 2)
    link.kind = TranscriptLink::kCopyAnswer;
  else if (parts[0] == QStringLiteral("image") && parts.size() == 3 && index >= 0)
    link.kind = TranscriptLink::kImage;
  else
    return link;
  link.message = message;
  link.index = index;
  return link;
}

void InsertPlainText(QTextCursor& cursor, const QString& text, const QTextCharFormat& format) {
  // insertText takes the string literally; '\n' and '\r\n' become new blocks.
  QString normalised = text;
  normalised.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
  cursor.insertText(normalised, format);
}

CodeBlocks InsertAnswerMarkdown(QTextCursor& cursor, const QString& markdown, int message,
                                const QPalette& palette) {
  QTextDocument doc;
  doc.setDefaultFont(cursor.document()->defaultFont());
  doc.setMarkdown(markdown, QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub |
                                                            QTextDocument::MarkdownNoHTML));
  ReplaceImages(doc, palette);
  StyleTables(doc.rootFrame(), palette);
  CodeBlocks code = MarkCodeBlocks(doc, message, palette);
  cursor.insertFragment(QTextDocumentFragment(&doc));
  return code;
}

void InsertThumbnails(QTextCursor& cursor, const std::vector<QImage>& images, int message,
                      int height) {
  QTextDocument* doc = cursor.document();
  for (size_t k = 0; k < images.size(); ++k) {
    const QImage& image = images[k];
    if (image.isNull()) continue;
    const QUrl url = ImageUrl(message, static_cast<int>(k));
    const QImage thumb = image.height() > height * 2
                             ? image.scaledToHeight(height * 2, Qt::SmoothTransformation)
                             : image;
    doc->addResource(QTextDocument::ImageResource, url, thumb);
    QTextImageFormat format;
    format.setName(url.toString());
    format.setHeight(height);
    format.setWidth(static_cast<double>(height) * image.width() / std::max(1, image.height()));
    format.setAnchor(true);
    format.setAnchorHref(url.toString());
    format.setToolTip(Tr("Image %1 of this message: click to show it and its attention")
                          .arg(k + 1));
    cursor.insertImage(format);
    cursor.insertText(QStringLiteral(" "), QTextCharFormat());
  }
}

}  // namespace glance::ui
