#pragma once
// glance-cli started with a standard stream closed (`glance-cli chat 0<&-`): the first file the
// program opens would get that descriptor, and `chat` would read the model's weights as "user
// input" (issue 12.8). GuardStandardStreams(), first thing in main(), puts /dev/null on each
// closed one so no file lands there, and remembers that stdin was closed so commands that read
// it can refuse with a clear message instead of reading nothing.
namespace glance::cli {

void GuardStandardStreams();
// False when stdin was closed at start (it is /dev/null now).
bool StdinWasOpen();

}  // namespace glance::cli
