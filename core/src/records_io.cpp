// Records files: JSON Lines (plain or gzip) read whole, written atomically,
// appended line by line. One line's schema is record_json.cpp's.
#include "ucmoh/records_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <zlib.h>

namespace ucmoh {

namespace {

Status WriteAllAndSync(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) return Status::IOError(path + ": write failed: " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return Status::IOError(path + ": fsync failed: " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace

Expected<std::vector<NumberedRecord>> ParseNumberedRecordsText(std::string_view text, const std::string& source) {
  std::vector<NumberedRecord> out;
  int64_t number = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string line(text.substr(start, end - start));
    start = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto record = RecordFromJsonLine(line);
    if (!record.ok()) return record.status().WithContext(source + std::to_string(number));
    out.push_back({number, std::move(*record)});
  }
  return out;
}

Expected<std::vector<Record>> ParseRecordsText(std::string_view text) {
  auto numbered = ParseNumberedRecordsText(text, "line ");
  if (!numbered.ok()) return numbered.status();
  std::vector<Record> out;
  out.reserve(numbered->size());
  for (auto& n : *numbered) out.push_back(std::move(n.record));
  return out;
}

Expected<std::vector<NumberedRecord>> ReadRecordsFile(const std::string& path) {
  // zlib reads gzip-compressed files (the committed data sets) and plain
  // files alike.
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) return Status::NotFound(path + ": cannot open records file");
  std::vector<NumberedRecord> out;
  std::string line;
  char buffer[1 << 16];
  int64_t number = 0;
  Status status;
  auto finish_line = [&]() {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;
    auto record = RecordFromJsonLine(line);
    if (!record.ok()) {
      status = record.status().WithContext(path + ":" + std::to_string(number));
      return;
    }
    out.push_back({number, std::move(*record)});
  };
  while (status.ok() && gzgets(in, buffer, sizeof(buffer)) != nullptr) {
    line += buffer;
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      finish_line();
      line.clear();
    }
  }
  if (status.ok() && !line.empty()) finish_line();  // a last line without newline
  int error = 0;
  const char* message = gzerror(in, &error);
  if (status.ok() && error != Z_OK && error != Z_STREAM_END)
    status = Status::IOError(path + ": read failed: " + message);
  gzclose(in);
  if (!status.ok()) return status;
  return out;
}

Expected<std::set<std::string>> ReadProgramKeys(const std::string& path) {
  std::set<std::string> keys;
  if (::access(path.c_str(), F_OK) != 0) return keys;
  auto records = ReadRecordsFile(path);
  if (!records.ok()) return records.status();
  for (const NumberedRecord& r : *records) keys.insert(ProgramKey(r.record));
  return keys;
}

Status WriteRecordsFile(const std::string& path, const std::vector<Record>& records) {
  std::string data;
  for (const auto& r : records) data += RecordToJsonLine(r) + '\n';
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(tmp + ": cannot create: " + std::strerror(errno));
  Status s = WriteAllAndSync(fd, data, tmp);
  ::close(fd);
  if (!s.ok()) {
    std::remove(tmp.c_str());
    return s;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return Status::IOError(path + ": rename failed: " + std::strerror(errno));
  return Status::Ok();
}

Status AppendRecords(const std::string& path, const std::vector<Record>& records) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(path + ": cannot open for append: " + std::strerror(errno));
  std::string data;
  for (const auto& r : records) data += RecordToJsonLine(r) + '\n';
  // One write(2) with O_APPEND: whole lines or nothing in all but a crash
  // mid-syscall; ReadRecordsFile reports any torn last line with its number.
  Status s = WriteAllAndSync(fd, data, path);
  ::close(fd);
  return s;
}

}  // namespace ucmoh
