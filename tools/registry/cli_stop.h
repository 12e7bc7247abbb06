// SIGINT / SIGTERM as a request to stop after the work in flight, for the
// commands that append as they go (measure, here or on hosts), so an
// interrupted run keeps everything it finished and resumes.
#pragma once

namespace ucmoh::cli {

// Installs the handlers: from now on a signal only sets the request.
void StopOnSignals();
bool StopRequested();

}  // namespace ucmoh::cli
