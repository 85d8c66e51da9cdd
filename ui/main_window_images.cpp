// MainWindow: images in and out of the next message (issue 34 item 2). The attachment strip
// above the message box shows what goes with the next message, in order, each with a remove
// button (Session::RemovePendingImage); a message's images become thumbnails in its bubble,
// and clicking one shows it with its maps. An image brought into a chat that already has an
// answer asks first, or starts a new chat, as the user chose (Chat ▸ Images in an answered chat).
#include <QAction>
#include <QActionGroup>
#include <QCheckBox>
#include <QFileInfo>
#include <QMenu>
#include <QSet>
#include <QStatusBar>
#include <QMessageBox>
#include <QPushButton>

#include "ui/attachment_strip.h"
#include "ui/attention_panel.h"
#include "ui/chat_view.h"
#include "ui/conversation_store.h"
#include "ui/heatmap.h"
#include "ui/image_drop_area.h"
#include "ui/main_window.h"
#include "ui/settings_file.h"

namespace glance::ui {
namespace {

const QString kImagePolicyKey = QStringLiteral("chat/image_into_answered_chat");

QString PolicyName(MainWindow::ImageIntoAnsweredChat policy) {
  switch (policy) {
    case MainWindow::ImageIntoAnsweredChat::kNewChat:
      return QStringLiteral("new_chat");
    case MainWindow::ImageIntoAnsweredChat::kAddToChat:
      return QStringLiteral("add");
    case MainWindow::ImageIntoAnsweredChat::kAsk:
      break;
  }
  return QStringLiteral("ask");
}

MainWindow::ImageIntoAnsweredChat PolicyFromName(const QString& name) {
  if (name == QStringLiteral("new_chat")) return MainWindow::ImageIntoAnsweredChat::kNewChat;
  if (name == QStringLiteral("add")) return MainWindow::ImageIntoAnsweredChat::kAddToChat;
  return MainWindow::ImageIntoAnsweredChat::kAsk;
}

}  // namespace

bool MainWindow::LooksLikeAPhoto(const QImage& image) {
  if (image.isNull()) return false;
  // The demo world's scenes are a background of one or two colours and a few flat shapes: a
  // handful of colours even after scaling (resources/demo-scenes: 2-8 on a 64x64 sample). A
  // photo or a screenshot has hundreds. Nearest-neighbour sampling adds no blended colours.
  const QImage sample = image.scaled(64, 64, Qt::IgnoreAspectRatio, Qt::FastTransformation)
                            .convertToFormat(QImage::Format_RGB32);
  QSet<QRgb> colours;
  for (int y = 0; y < sample.height(); ++y)
    for (int x = 0; x < sample.width(); ++x) {
      colours.insert(sample.pixel(x, y) & 0xF0F0F0);  // 4 bits a channel: JPEG noise is one colour
      if (colours.size() > 48) return true;
    }
  return false;
}

void MainWindow::buildImageMenu(QMenu* chat) {
  imagePolicy_ = PolicyFromName(SettingsFile::App()->value(kImagePolicyKey).toString());
  QMenu* menu = chat->addMenu(tr("&Images in an answered chat"));
  auto* group = new QActionGroup(menu);
  const std::pair<ImageIntoAnsweredChat, QString> choices[] = {
      {ImageIntoAnsweredChat::kAsk, tr("&Ask each time")},
      {ImageIntoAnsweredChat::kNewChat, tr("Start a &new chat")},
      {ImageIntoAnsweredChat::kAddToChat, tr("Add to &this chat")}};
  for (const auto& [policy, label] : choices) {
    QAction* a = menu->addAction(label);
    a->setCheckable(true);
    a->setData(PolicyName(policy));
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, policy = policy] { setImageIntoAnsweredChat(policy); });
  }
  auto sync = [group, this] {
    for (QAction* a : group->actions()) a->setChecked(a->data().toString() == PolicyName(imagePolicy_));
  };
  connect(menu, &QMenu::aboutToShow, this, sync);
  sync();
}

void MainWindow::setImageIntoAnsweredChat(ImageIntoAnsweredChat policy) {
  imagePolicy_ = policy;
  SettingsFile::App()->setValue(kImagePolicyKey, PolicyName(policy));
}

bool MainWindow::prepareChatForImage() {
  if (current_.turns.empty() || readOnly_) return true;  // nothing answered yet (read-only: a new chat anyway)
  ImageIntoAnsweredChat choice = imagePolicy_;
  if (choice == ImageIntoAnsweredChat::kAsk) {
    QMessageBox box(QMessageBox::Question, tr("This chat already has an answer"),
                    tr("Start a new chat with this image, or add it to this conversation?\n"
                       "(A model reading a second picture in the same chat may mix the two up.)"),
                    QMessageBox::NoButton, this);
    QPushButton* fresh = box.addButton(tr("&New chat"), QMessageBox::AcceptRole);
    QPushButton* add = box.addButton(tr("&Add to this chat"), QMessageBox::ActionRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(fresh);
    auto* remember = new QCheckBox(tr("Do this every time (Chat \u25B8 Images in an answered chat)"), &box);
    box.setCheckBox(remember);
    box.exec();
    if (box.clickedButton() == fresh)
      choice = ImageIntoAnsweredChat::kNewChat;
    else if (box.clickedButton() == add)
      choice = ImageIntoAnsweredChat::kAddToChat;
    else
      return false;
    if (remember->isChecked()) setImageIntoAnsweredChat(choice);
  }
  if (choice == ImageIntoAnsweredChat::kNewChat) chat_->newChatAction()->trigger();
  return true;
}

void MainWindow::removeAttachment(int position) {
  if (position < 0 || position >= static_cast<int>(pendingImages_.size())) return;  // still encoding
  chat_->attachments()->setRemovable(false);  // until the engine has dropped it
  Q_EMIT requestRemovePendingImage(position);
}

void MainWindow::onPendingImageRemoved(int position) {
  const auto at = static_cast<size_t>(position);
  if (at < pendingImages_.size()) {
    pendingImages_.erase(pendingImages_.begin() + position);
    if (at < pendingPreviews_.size()) pendingPreviews_.erase(pendingPreviews_.begin() + position);
    --imageCount_;
  }
  chat_->attachments()->removeAt(position);
  updateContextMeter();
  chat_->attachments()->setRemovable(incoming_.empty());
  // The dock shows the last image still attached, or none.
  attention_->clear();
  if (!pendingImages_.empty()) {
    dropArea_->setImageInfo(pendingImages_.back(), pendingPreviews_.back(),
                            chat_->attachments()->nameAt(chat_->attachments()->count() - 1));
    attention_->setImage(pendingPreviews_.back());
  } else {
    dropArea_->clearImage();
    attention_->setImage(QImage());
  }
}

void MainWindow::dropIncomingImage() {
  if (incoming_.empty()) return;
  incoming_.pop_front();
  chat_->attachments()->removeAt(static_cast<int>(pendingImages_.size()));  // its tile
  chat_->attachments()->setRemovable(incoming_.empty());
}

void MainWindow::restoreSentImages() {
  AttachmentStrip* strip = chat_->attachments();
  if (sentThumbs_.empty() || strip->count() > 0) return;
  for (size_t i = 0; i < sentThumbs_.size(); ++i) {
    strip->addImage(sentThumbs_[i], i < sentNames_.size() ? sentNames_[i] : QString());
    strip->setReady(static_cast<int>(i), i < pendingImages_.size() ? DescribeImage(pendingImages_[i]) : QString());
  }
  chat_->setLastUserImages({});  // the failed message no longer carries them
  sentThumbs_.clear();
  sentNames_.clear();
  sentPreviews_.clear();
}

std::vector<QImage> MainWindow::thumbnailsOf(const ConversationTurn& turn) const {
  std::vector<QImage> thumbs;
  for (const ImageInfo& info : turn.images) {
    const QString path = store_->findImage(Q(info.path), Q(info.sha256));
    QString error;
    // Decoded small (JPEG scales while decoding); a missing file leaves an empty slot.
    thumbs.push_back(path.isEmpty() ? QImage() : Thumbnail(LoadImagePreview(path, &error, 640)));
  }
  return thumbs;
}

QImage MainWindow::processedImageOf(const ImageInfo& info, QImage* source) const {
  const QString path = store_->findImage(Q(info.path), Q(info.sha256));
  if (path.isEmpty()) return {};
  QString error;
  const QImage picture = LoadImagePreview(path, &error);
  if (source) *source = picture;
  return picture.isNull() ? QImage() : ProcessedView(picture, info.resized_w, info.resized_h);
}

bool MainWindow::showAnswerMaps(int turn) {
  if (turn < 0 || turn >= static_cast<int>(current_.turns.size())) return false;
  const ConversationTurn& saved = current_.turns[static_cast<size_t>(turn)];
  if (saved.attention.empty()) {
    statusBar()->showMessage(tr("This answer kept no attention maps (no image, or capture was off)."), 8000);
    return false;
  }
  // The maps are over the newest image the answer saw (AttentionMap::image_index counts the
  // conversation's images in order); find which message holds it.
  const int index = saved.attention.back().image_index;
  const ImageInfo* info = nullptr;
  int seen = 0;
  for (const ConversationTurn& t : current_.turns) {
    const int n = static_cast<int>(t.images.size());
    if (index >= seen && index < seen + n) info = &t.images[static_cast<size_t>(index - seen)];
    seen += n;
  }
  QImage source;
  const QImage processed = info ? processedImageOf(*info, &source) : QImage();
  if (processed.isNull()) {
    statusBar()->showMessage(tr("The image this answer looked at is no longer there."), 8000);
    return false;
  }
  std::vector<AttentionMap> maps;
  for (const AttentionMap& m : saved.attention)
    if (m.image_index == index) maps.push_back(m);
  std::vector<AttentionWord> words;
  if (maps.size() == saved.attention.size()) words = saved.words;
  attention_->clear();
  attention_->setImage(processed, source);
  dropArea_->setImageInfo(*info, processed);
  attention_->setAttention(std::move(maps), std::move(words));
  return true;
}

void MainWindow::showMessageImage(int turn, int image) {
  const int turns = static_cast<int>(current_.turns.size());
  if (turn < 0 || turn > turns || image < 0) return;
  // The message being answered is not in current_ yet: its images are the ones just sent.
  const bool live = turn == turns;
  const std::vector<ImageInfo>& infos = live ? pendingImages_ : current_.turns[static_cast<size_t>(turn)].images;
  if (image >= static_cast<int>(infos.size())) return;
  const ImageInfo& info = infos[static_cast<size_t>(image)];
  int index = 0;  // the image's index in the conversation (AttentionMap::image_index)
  for (int t = 0; t < std::min(turn, turns); ++t) index += static_cast<int>(current_.turns[static_cast<size_t>(t)].images.size());
  index += image;
  QImage source;  // the picture as opened, for the panel's Original view (not kept for a live message)
  QImage processed = live && static_cast<size_t>(image) < sentPreviews_.size()
                         ? sentPreviews_[static_cast<size_t>(image)]
                         : processedImageOf(info, &source);
  if (processed.isNull()) {
    dropArea_->showMessage(tr("The image %1 is no longer there.").arg(Q(info.path)));
    return;
  }
  attention_->clear();
  attention_->setImage(processed, source);
  dropArea_->setImageInfo(info, processed);
  // Its maps: every image of the last answered message, else what the turn kept (its last image).
  std::vector<AttentionMap> maps;
  std::vector<AttentionWord> words;
  if (!live) {  // the answer just given, else what the saved turn kept for each image
    const bool justAnswered = turn == turns - 1 && !lastImageMaps_.empty();
    const ConversationTurn& saved = current_.turns[static_cast<size_t>(turn)];
    for (const ImageAttention& a : justAnswered ? lastImageMaps_ : saved.attention_by_image)
      if (a.image_index == index) {
        maps = a.maps;
        words = justAnswered ? lastWords_ : saved.words;
      }
  }
  if (maps.empty() && !live) {
    const ConversationTurn& saved = current_.turns[static_cast<size_t>(turn)];
    for (const AttentionMap& m : saved.attention)
      if (m.image_index == index) maps.push_back(m);
    if (maps.size() == saved.attention.size()) words = saved.words;
  }
  if (!maps.empty()) attention_->setAttention(std::move(maps), std::move(words));
}

}  // namespace glance::ui
