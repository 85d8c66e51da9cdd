// Markdown export of a conversation (conversation_store_types.h).
#include <QFileInfo>

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

}  // namespace

QString ToMarkdown(const Conversation& c) {
  QString md;
  md += QStringLiteral("# %1\n\n").arg(c.title.isEmpty() ? QStringLiteral("Conversation") : c.title);
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
      if (!path.isEmpty()) md += QStringLiteral("![%1](%2)\n\n").arg(name, path);
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

}  // namespace glance::ui
