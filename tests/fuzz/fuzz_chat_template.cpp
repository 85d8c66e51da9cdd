// Chat template (core/text/chat_template.h): the input is a template text, NUL, then message
// text; the template is parsed and rendered over a conversation holding that text and an image.
#include "core/text/chat_template.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = glance::fuzz::SplitNul(glance::fuzz::AsText(data, size), 2);
  try {
    const glance::ChatTemplate t = glance::ChatTemplate::FromText(std::string(parts[0]), "fuzz/chat_template.jinja");
    std::vector<glance::ChatMessage> messages;
    messages.push_back(glance::ChatMessage::FromText("system", std::string(parts[1])));
    glance::ChatMessage user;
    user.role = "user";
    user.content = {glance::ContentPart::Image(), glance::ContentPart::Text(std::string(parts[1]))};
    messages.push_back(user);
    messages.push_back(glance::ChatMessage::FromText("assistant", std::string(parts[1])));
    for (bool thinking : {false, true}) {
      glance::ChatTemplateOptions options;
      options.add_generation_prompt = true;
      options.enable_thinking = thinking;
      (void)t.Render(messages, options);
    }
  } catch (const glance::Error&) {
  }
  return 0;
}
