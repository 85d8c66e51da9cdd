#pragma once
// The context meter by the message box (issue 36 item 8): how much of the model's context the
// conversation holds, what the next message would add — the images' tokens counted, not only
// the text (LM Studio's meter left them out and its users lost answers: lmstudio-bug-tracker
// #1408) — and a warning before a message would not fit, saying what happens then.
//
// The engine counts exactly what the conversation holds (Session::context_tokens()); the next
// message's text is estimated from its length until it is sent (one token per 3 bytes of UTF-8,
// more than byte-level BPE spends on ordinary text, so the warning comes early rather than
// late), its images exactly (their token grids plus the two markers around each).
#include <QLabel>
#include <QString>

namespace glance::ui {

struct ContextUsage {
  int used = 0;            // tokens the conversation holds now
  int limit = 0;           // the session's context limit; 0 = no model loaded
  int image_tokens = 0;    // images attached to the next message, markers included
  int text_bytes = 0;      // the next message's text, UTF-8 bytes
  int answer_tokens = 0;   // the answer's budget (Settings' maximum new tokens)
  // `used` is an estimate: while an answer is written the message sent and the pieces streamed
  // so far count as held (issue 34: the sent message showed as still to come); the engine's
  // exact count replaces it when the turn ends.
  bool estimated = false;

  enum class Level { kFine, kAnswerMayBeCut, kWillNotFit };

  // Tokens the next message adds: its images, its estimated text and the turn's framing
  // (<|im_start|>user … <|im_end|>, the assistant header and the empty think block).
  int next_message_tokens() const;
  int after_next_message() const { return used + next_message_tokens(); }
  Level level() const;
};

// The tokens one attached image adds: its merged grid plus <|vision_start|> and <|vision_end|>.
int ImageContextTokens(int grid_tokens);

class ContextMeter : public QLabel {
  Q_OBJECT
 public:
  explicit ContextMeter(QWidget* parent = nullptr);
  void setUsage(const ContextUsage& usage);
  const ContextUsage& usage() const { return usage_; }
  ContextUsage::Level level() const { return usage_.level(); }
  // The sentence shown as the tooltip and the accessible description (the warning, when one).
  QString explanation() const;
  // At least 4 em wide, not its whole text's width: where the chat is too narrow for the text
  // it shows the short form ("89 / 64k"), and only then cuts it at the right (its tooltip has
  // all of it). As wide as its text, it set the chat's narrowest width, which grew with each
  // digit and took the docks' room (issue 34).
  QSize minimumSizeHint() const override;
  // What a narrow meter shows: counts of 10,000 and more in thousands of 1,024 tokens, no unit.
  QString shortText() const;
  // What is drawn at the current width: the text, else the short form, cut at the right if even
  // that does not fit.
  QString shownText() const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void applyTextColour();  // the level's colour (or the placeholder grey) from the current theme

  ContextUsage usage_;
  QString shortText_;
};

}  // namespace glance::ui
