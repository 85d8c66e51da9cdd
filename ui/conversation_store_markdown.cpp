// Markdown export of a conversation (conversation_store_types.h), with its images beside it.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QUrl>

#include "ui/atomic_save.h"
#include "ui/conversation_store_types.h"
#include "ui/event_types.h"

namespace glance::ui {

namespace {

QString StatsLine(const TurnStats& s) {
  return QStringLiteral("*%1 prompt tokens (%2 image) · %3 generated · TTFT %4 s · prefill %5 "
                        "tok/s · decode %6 tok/s · %7, %8, %9*")
      .arg(s.prompt_tokens)
      .arg(s.image_tokens)
      .arg(s.generated_tokens)
      .arg(s.ttft_s, 0, 'f', 2)
      .arg(s.prefill_tokens_per_s, 0, 'f', 1)
      .arg(s.decode_tokens_per_s, 0, 'f', 1)
      .arg(Q(s.backend), Q(std::string(Name(s.precision))), ThreadCount(s.threads));
}

// A relative path as a Markdown link destination: each segment percent-encoded (spaces,
// parentheses and non-ASCII names stay one link in every renderer).
QString LinkTo(const QString& relative) {
  QStringList segments = relative.split(QLatin1Char('/'));
  for (QString& segment : segments) segment = QString::fromLatin1(QUrl::toPercentEncoding(segment));
  return segments.join(QLatin1Char('/'));
}

}  // namespace

QString ToMarkdown(const Conversation& c, const std::function<QString(const ImageInfo&)>& imageLink) {
  QString md;
  const QString title = ExportTitle(c);
  md += QStringLiteral("# %1\n\n").arg(title.isEmpty() ? QStringLiteral("Conversation") : title);
  if (!c.turns.empty() && !c.turns.back().model.isEmpty())
    md += QStringLiteral("*Model: %1, %2 weights.*\n\n")
              .arg(c.turns.back().model, Q(std::string(Name(c.turns.back().stats.precision))));
  md += QStringLiteral("*Created %1, updated %2.*\n\n")
            .arg(c.created.toString(Qt::ISODate), c.updated.toString(Qt::ISODate));
  if (!c.system_prompt.isEmpty()) md += QStringLiteral("**System:** %1\n\n").arg(c.system_prompt);
  for (const ConversationTurn& t : c.turns) {
    md += QStringLiteral("## User\n\n");
    for (const MessagePart& part : OrderedParts(t)) {
      if (part.kind == MessagePart::kText) {
        if (!part.text.empty()) md += Q(part.text) + QStringLiteral("\n\n");
        continue;
      }
      const ImageInfo& img = t.images[static_cast<size_t>(part.image)];
      const QString path = Q(img.path);
      const QString name = path.isEmpty() ? QStringLiteral("pasted image") : QFileInfo(path).fileName();
      const QString link = imageLink ? imageLink(img) : QString();
      if (!link.isEmpty()) md += QStringLiteral("![%1](%2)\n\n").arg(name, link);
      md += QStringLiteral("- image `%1`: %2×%3 → %4×%5, %6×%7 tokens (%8), sha256 `%9`\n\n")
                .arg(name)
                .arg(img.source_w)
                .arg(img.source_h)
                .arg(img.resized_w)
                .arg(img.resized_h)
                .arg(img.grid_w)
                .arg(img.grid_h)
                .arg(Q(std::string(Name(img.mode))), Q(img.sha256));
    }
    md += QStringLiteral("## Assistant\n\n") + t.answer + QStringLiteral("\n\n");
    if (t.stats.generated_tokens > 0) md += StatsLine(t.stats) + QStringLiteral("\n\n");
    // Regenerated answers: which one the conversation went on from, then the others.
    const int n = static_cast<int>(t.alternatives.size());
    if (n > 1) {
      md += QStringLiteral("*Answer %1 of %2; the conversation continues from it.*\n\n").arg(t.chosen + 1).arg(n);
      for (int k = 0; k < n; ++k) {
        if (k == t.chosen) continue;
        const AnswerAlternative& a = t.alternatives[static_cast<size_t>(k)];
        md += QStringLiteral("### Other answer (%1 of %2)\n\n").arg(k + 1).arg(n) + a.answer + QStringLiteral("\n\n");
        if (a.stats.generated_tokens > 0) md += StatsLine(a.stats) + QStringLiteral("\n\n");
      }
    }
  }
  return md;
}

bool WriteMarkdownExport(const Conversation& c, const QString& path,
                         const std::function<QString(const ImageInfo&)>& find, QString* error, int* images) {
  const QFileInfo target(path);
  const QString folderName = target.completeBaseName() + QStringLiteral("_images");
  const QDir folder(target.absoluteDir().filePath(folderName));
  QHash<QString, QString> copied;    // sha256 (or source path) -> file name in the folder
  QHash<QString, QString> nameOwner;  // file name (lower case) -> its sha256
  QString failed;
  auto link = [&](const ImageInfo& img) -> QString {
    if (!failed.isEmpty()) return {};
    const QString source = find ? find(img) : QString();
    if (source.isEmpty() || !QFileInfo(source).isFile()) return {};
    const QString identity = img.sha256.empty() ? source : Q(img.sha256);
    if (copied.contains(identity)) return LinkTo(folderName + QLatin1Char('/') + copied.value(identity));
    // Its own name (the name it was attached by; a kept copy has the same one), made unique.
    const QFileInfo own(img.path.empty() ? source : Q(img.path));
    QString name = own.fileName();
    for (int n = 2; nameOwner.contains(name.toLower()); ++n)
      name = QStringLiteral("%1 (%2)%3")
                 .arg(own.completeBaseName())
                 .arg(n)
                 .arg(own.suffix().isEmpty() ? QString() : QLatin1Char('.') + own.suffix());
    QFile in(source);
    // Only the folder itself: a file whose own folder is missing fails below, as before.
    if (!folder.exists() && !target.absoluteDir().mkdir(folderName)) {
      failed = QStringLiteral("cannot create the folder %1").arg(folder.path());
      return {};
    }
    if (!in.open(QIODevice::ReadOnly)) {
      failed = QStringLiteral("cannot read the image %1: %2").arg(source, in.errorString());
      return {};
    }
    if (!SaveFileAtomically(folder.filePath(name), in.readAll(), &failed)) return {};
    nameOwner.insert(name.toLower(), identity);
    copied.insert(identity, name);
    return LinkTo(folderName + QLatin1Char('/') + name);
  };
  const QString md = ToMarkdown(c, link);
  if (!failed.isEmpty()) {
    if (error) *error = failed;
    return false;
  }
  if (images) *images = static_cast<int>(copied.size());
  return SaveFileAtomically(path, md.toUtf8(), error);
}

}  // namespace glance::ui
