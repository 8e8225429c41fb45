#include "src/03_hooked/events/event_file_reader.h"

#include <algorithm>

#include "src/platform/errors.h"

namespace mts {

EventFileReader::EventFileReader(const std::string& path, FileSystem* fs)
    : records_(RecordReader::FromFile(path, fs)) {}

bool EventFileReader::Next(tensorflow::Event* event) {
  uint64_t next = offset_;
  std::string payload;
  if (!records_.ReadRecord(&next, &payload)) return false;
  // The CRC matched, so these are the bytes the writer meant; if they still do not parse,
  // what was written was not an Event. The offset moves only past a record that parsed, as
  // the header promises (a fuzzer found that it once moved past this one too).
  if (!event->ParseFromString(payload)) {
    throw DataLossError("record is not a tensorflow.Event at offset " + std::to_string(offset_) +
                        " in " + records_.filename() +
                        ". The file holds other records than events: read it with "
                        "RecordReader, or check that the path names an event file.");
  }
  offset_ = next;
  return true;
}

std::vector<tensorflow::Event> ReadEventFile(const std::string& path, FileSystem* fs) {
  EventFileReader reader(path, fs);
  std::vector<tensorflow::Event> events;
  tensorflow::Event event;
  while (reader.Next(&event)) events.push_back(event);
  return events;
}

bool IsEventFileName(const std::string& path) {
  return Basename(path).find("tfevents") != std::string::npos;
}

std::vector<std::string> ListEventFiles(const std::string& dir, FileSystem* fs) {
  if (fs == nullptr) fs = DefaultFileSystem();
  std::vector<std::string> paths;
  for (const std::string& name : fs->ListDirectory(dir)) {
    if (IsEventFileName(name)) paths.push_back(JoinPath(dir, name));
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::vector<tensorflow::Event> ReadEventDirectory(const std::string& dir, FileSystem* fs) {
  std::vector<tensorflow::Event> events;
  for (const std::string& path : ListEventFiles(dir, fs)) {
    std::vector<tensorflow::Event> file_events = ReadEventFile(path, fs);
    events.insert(events.end(), file_events.begin(), file_events.end());
  }
  return events;
}

std::vector<ScalarValue> ScalarSummaries(const std::vector<tensorflow::Event>& events) {
  std::vector<ScalarValue> scalars;
  for (const tensorflow::Event& event : events) {
    if (!event.has_summary()) continue;
    for (const tensorflow::Summary::Value& value : event.summary().value()) {
      if (value.value_case() != tensorflow::Summary::Value::kSimpleValue) continue;
      scalars.push_back({event.step(), event.wall_time(), value.tag(), value.simple_value()});
    }
  }
  return scalars;
}

}  // namespace mts
