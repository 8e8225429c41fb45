// event_file.h: EventFile, the one event file a FileWriter's flush thread writes, kept whole
// through a failed write and made again when someone deletes it.
//
//   HookedSession       hooks add events to a FileWriter
//     FileWriter        queues them; its flush thread hands each batch to ...
//       EventFile       <-- this file: names and creates the file, appends and syncs a batch,
//                       keeps the file whole after a failed write, notices a deleted file
//         RecordWriter  frames each serialized Event as a TFRecord (record_writer.h)
//           WritableFile  the platform seam (src/platform/file_system.h)
//
// The file is <logdir>/events.out.tfevents.<10-digit unix seconds>.<hostname><suffix>, its
// first record Event{wall_time: those seconds, file_version: "brain.Event:2"}, synced at
// once. A file is never truncated by its creation: if the name is taken (another writer,
// this second) it gets ".<pid>.<n>" before the suffix, as TensorFlow 2 names its files.
//
// Two things can happen to the file while a job runs, and neither may cost more than the
// events of the moment:
//
//   - A write fails part-way (a full disk, a file-size limit). The file may now end in a
//     torn record, and a reader stops at a torn record, so writing after it would hide
//     every later event. The file is closed and cut back at once to its last whole record
//     (the length after the last successful sync; cutting needs no room on the disk), and
//     the next Append goes on in the same file. A disk that fails for an hour therefore
//     leaves one whole file, not one per attempt.
//   - Someone deletes the file, or its directory (`rm -rf logdir` while the job runs). A
//     process writing to an unlinked file writes into nothing. After every sync the file's
//     name is looked up, as TensorFlow's EventsWriter does; if it is gone the error is
//     logged ("The events file ... has disappeared"), the directory and a new file are made,
//     and the batch just synced into the lost file is written again into the new one.
//
// Thread safety: one thread at a time (the flush thread, or Close once it has stopped).
//
// TensorFlow: the C++ EventsWriter (tensorflow/core/util/events_writer.h): InitIfNeeded,
// which names the file and writes the first record, and FileStillExists, which its Flush
// checks. TensorFlow reports a deleted file and loses the events written to it; EventFile
// writes them again. TensorFlow keeps appending after a torn record.
#ifndef MTS_SRC_03_HOOKED_EVENTS_EVENT_FILE_H_
#define MTS_SRC_03_HOOKED_EVENTS_EVENT_FILE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "src/03_hooked/events/record_writer.h"
#include "src/platform/file_system.h"

namespace mts {

/// The event file of one FileWriter, as its flush thread writes it.
///
/// Lifecycle: 1. construct (nothing is made); 2. Create, or Append, which creates the file
/// first if there is none; 3. Append any number of times; after one that threw, the next
/// repairs the file and goes on in it; 4. Close; the next Append creates a new file.
///
/// Thread safety: not thread-safe; one thread at a time.
///
/// TensorFlow: the C++ `EventsWriter`.
class EventFile {
 public:
  /// The version string of the first record of every event file.
  static constexpr char kFileVersion[] = "brain.Event:2";

  /// A file to be made in `logdir`, its name ending in `suffix`, through `fs` (which must
  /// outlive this). `on_new_path` is called with the path of each file made, as soon as it
  /// exists and before its first record is written.
  EventFile(std::string logdir, std::string suffix, FileSystem* fs,
            std::function<void(const std::string&)> on_new_path);
  /// Closes the file; never throws (a failure is logged).
  ~EventFile();

  EventFile(const EventFile&) = delete;
  EventFile& operator=(const EventFile&) = delete;

  /// Makes the file now, named for `seconds` since the epoch, unless one is open; writes and
  /// syncs its first record. An earlier file left torn is repaired instead.
  /// \throws OpError if the directory or the file cannot be made, or the first record not
  ///   written; a file made is kept and used by the next call.
  void Create(int64_t seconds);

  /// Appends `records` (serialized Events) and syncs them, creating the file first (named
  /// for `seconds`) if there is none, or repairing one a failed write left torn. If the
  /// file has disappeared meanwhile, logs it and writes `records` again into a new file.
  /// \throws OpError if writing fails; the file then ends where it was whole before the
  ///   call (what the failure tore is cut off at once, or by the next call or Close if
  ///   that cut fails too).
  void Append(const std::deque<std::string>& records, int64_t seconds);

  /// Closes the file (cutting off a torn tail first). A later Create or Append starts a
  /// new file. \throws OpError if the close fails; the file is closed anyway.
  void Close();

 private:
  // Opens a file to write: the torn one cut back to its last whole record, or a new one.
  void Prepare(int64_t seconds);
  // Creates a new file named for `seconds` (never an existing one) and its first record.
  void CreateNew(int64_t seconds);
  // Cuts the torn file back to `synced_bytes_` and opens it to append.
  void Repair();
  // Appends and syncs `records`; on failure closes the file, marks it torn, cuts it back
  // to `synced_bytes_` (if it can) and rethrows.
  void Write(const std::deque<std::string>& records);
  // Writes the first record, the version event stamped `seconds_`.
  void WriteFirstRecord();
  // Drops the open file without raising (its write already failed).
  void CloseQuietly();

  const std::string logdir_;
  const std::string suffix_;
  FileSystem* const fs_;
  const std::function<void(const std::string&)> on_new_path_;

  std::string path_;                    // The newest file made; "" before the first.
  int64_t seconds_ = 0;                 // The seconds its name and first record carry.
  std::unique_ptr<RecordWriter> file_;  // Open for writing, or null.
  uint64_t synced_bytes_ = 0;           // Of path_, the bytes known whole and synced.
  bool torn_ = false;                   // A write failed: path_ may end in a torn record.
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_EVENTS_EVENT_FILE_H_
