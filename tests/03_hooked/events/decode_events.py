#!/usr/bin/python3
"""decode_events.py: an event-file decoder that shares nothing with mts.

    usage: decode_events.py [--check-name] <event file>

It checks what mts's reader and writer could both get wrong in the same way:

- The TFRecord framing is parsed here with `struct`, and the CRC-32C and its mask are
  computed by a table built here (checked against the standard test vector on start).
- The Event, Summary (with its Image), HistogramProto, SummaryMetadata, TensorProto (the
  fields a text summary uses) and SessionLog message types are built here, field by field,
  as descriptors for Debian's python3-protobuf, with the field numbers taken from the format
  reference (shared/reference/tensorboard-and-checkpoint-formats.md, section 2) and
  TensorFlow's tensor.proto, not from mts's .proto files.
- Every payload must parse, drop whatever this decoder does not know, and serialize back to
  exactly the same bytes: so no field mts wrote is unknown here (a wrong field number), and
  mts wrote the fields in TensorFlow's canonical order.
- With --check-name, the file name must be events.out.tfevents.<10 digits>.<host>[suffix]
  and the first record must be file_version "brain.Event:2" at exactly those seconds.

It prints one line per record, in the style of tests/testdata/tfevents/SOURCES.md (Python
repr for every number), for the test to compare with a golden file. Any failure is one
line on stderr and exit status 1.
"""

import os
import re
import struct
import sys

from google.protobuf import descriptor_pb2
from google.protobuf import descriptor_pool
from google.protobuf import message_factory

# --- CRC-32C (Castagnoli), reflected polynomial 0x82F63B78, and TFRecord's mask. ---

_CRC_TABLE = []
for _byte in range(256):
    _crc = _byte
    for _ in range(8):
        _crc = (_crc >> 1) ^ 0x82F63B78 if _crc & 1 else _crc >> 1
    _CRC_TABLE.append(_crc)


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = _CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283, "crc32c self-test failed"


class DamagedRecord(Exception):
    """A record cut short or failing a CRC; the message names the file and the offset."""


def read_records(data, name):
    """Yields (offset, payload) for each TFRecord in `data`; raises DamagedRecord on damage.
    tools/plot_scalars.py reads event files through this too."""
    offset = 0
    while offset < len(data):
        if len(data) - offset < 12:
            raise DamagedRecord("%s: truncated header at offset %d" % (name, offset))
        header = data[offset:offset + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[offset + 8:offset + 12])
        if masked_crc32c(header) != length_crc:
            raise DamagedRecord("%s: length CRC mismatch at offset %d" % (name, offset))
        end = offset + 12 + length + 4
        if end > len(data):
            raise DamagedRecord("%s: truncated record at offset %d" % (name, offset))
        payload = data[offset + 12:offset + 12 + length]
        (payload_crc,) = struct.unpack("<I", data[end - 4:end])
        if masked_crc32c(payload) != payload_crc:
            raise DamagedRecord("%s: payload CRC mismatch at offset %d" % (name, offset))
        yield offset, payload
        offset = end


# --- The message types, built from the reference's field tables. ---

F = descriptor_pb2.FieldDescriptorProto


def _field(message, name, number, ftype, label=F.LABEL_OPTIONAL, type_name=None,
           oneof_index=None, packed=False):
    field = message.field.add(name=name, number=number, type=ftype, label=label)
    if type_name:
        field.type_name = type_name
    if oneof_index is not None:
        field.oneof_index = oneof_index
    if packed:
        field.options.packed = True


def _build_types():
    file_proto = descriptor_pb2.FileDescriptorProto(
        name="independent/event.proto", package="tensorflow", syntax="proto3")

    histo = file_proto.message_type.add(name="HistogramProto")
    _field(histo, "min", 1, F.TYPE_DOUBLE)
    _field(histo, "max", 2, F.TYPE_DOUBLE)
    _field(histo, "num", 3, F.TYPE_DOUBLE)
    _field(histo, "sum", 4, F.TYPE_DOUBLE)
    _field(histo, "sum_squares", 5, F.TYPE_DOUBLE)
    _field(histo, "bucket_limit", 6, F.TYPE_DOUBLE, F.LABEL_REPEATED, packed=True)
    _field(histo, "bucket", 7, F.TYPE_DOUBLE, F.LABEL_REPEATED, packed=True)

    shape = file_proto.message_type.add(name="TensorShapeProto")
    dim = shape.nested_type.add(name="Dim")
    _field(dim, "size", 1, F.TYPE_INT64)
    _field(dim, "name", 2, F.TYPE_STRING)
    _field(shape, "dim", 2, F.TYPE_MESSAGE, F.LABEL_REPEATED,
           type_name=".tensorflow.TensorShapeProto.Dim")
    _field(shape, "unknown_rank", 3, F.TYPE_BOOL)

    tensor = file_proto.message_type.add(name="TensorProto")
    _field(tensor, "dtype", 1, F.TYPE_INT32)  # An enum on the wire: DT_STRING is 7.
    _field(tensor, "tensor_shape", 2, F.TYPE_MESSAGE, type_name=".tensorflow.TensorShapeProto")
    _field(tensor, "version_number", 3, F.TYPE_INT32)
    _field(tensor, "string_val", 8, F.TYPE_BYTES, F.LABEL_REPEATED)

    metadata = file_proto.message_type.add(name="SummaryMetadata")
    plugin_data = metadata.nested_type.add(name="PluginData")
    _field(plugin_data, "plugin_name", 1, F.TYPE_STRING)
    _field(plugin_data, "content", 2, F.TYPE_BYTES)
    _field(metadata, "plugin_data", 1, F.TYPE_MESSAGE,
           type_name=".tensorflow.SummaryMetadata.PluginData")
    _field(metadata, "display_name", 2, F.TYPE_STRING)
    _field(metadata, "summary_description", 3, F.TYPE_STRING)

    summary = file_proto.message_type.add(name="Summary")
    image = summary.nested_type.add(name="Image")
    _field(image, "height", 1, F.TYPE_INT32)
    _field(image, "width", 2, F.TYPE_INT32)
    _field(image, "colorspace", 3, F.TYPE_INT32)
    _field(image, "encoded_image_string", 4, F.TYPE_BYTES)
    value = summary.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    _field(value, "tag", 1, F.TYPE_STRING)
    _field(value, "simple_value", 2, F.TYPE_FLOAT, oneof_index=0)
    _field(value, "image", 4, F.TYPE_MESSAGE, type_name=".tensorflow.Summary.Image",
           oneof_index=0)
    _field(value, "histo", 5, F.TYPE_MESSAGE, type_name=".tensorflow.HistogramProto",
           oneof_index=0)
    _field(value, "tensor", 8, F.TYPE_MESSAGE, type_name=".tensorflow.TensorProto",
           oneof_index=0)
    _field(value, "metadata", 9, F.TYPE_MESSAGE, type_name=".tensorflow.SummaryMetadata")
    _field(summary, "value", 1, F.TYPE_MESSAGE, F.LABEL_REPEATED,
           type_name=".tensorflow.Summary.Value")

    session_log = file_proto.message_type.add(name="SessionLog")
    status = session_log.enum_type.add(name="SessionStatus")
    for name, number in [("STATUS_UNSPECIFIED", 0), ("START", 1), ("STOP", 2),
                         ("CHECKPOINT", 3)]:
        status.value.add(name=name, number=number)
    _field(session_log, "status", 1, F.TYPE_ENUM,
           type_name=".tensorflow.SessionLog.SessionStatus")
    _field(session_log, "checkpoint_path", 2, F.TYPE_STRING)
    _field(session_log, "msg", 3, F.TYPE_STRING)

    event = file_proto.message_type.add(name="Event")
    event.oneof_decl.add(name="what")
    _field(event, "wall_time", 1, F.TYPE_DOUBLE)
    _field(event, "step", 2, F.TYPE_INT64)
    _field(event, "file_version", 3, F.TYPE_STRING, oneof_index=0)
    _field(event, "graph_def", 4, F.TYPE_BYTES, oneof_index=0)
    _field(event, "summary", 5, F.TYPE_MESSAGE, type_name=".tensorflow.Summary", oneof_index=0)
    _field(event, "session_log", 7, F.TYPE_MESSAGE, type_name=".tensorflow.SessionLog",
           oneof_index=0)
    _field(event, "meta_graph_def", 9, F.TYPE_BYTES, oneof_index=0)

    pool = descriptor_pool.DescriptorPool()
    pool.Add(file_proto)
    factory = message_factory.MessageFactory(pool)
    return (factory.GetPrototype(pool.FindMessageTypeByName("tensorflow.Event")),
            pool.FindEnumTypeByName("tensorflow.SessionLog.SessionStatus"))


Event, SessionStatus = _build_types()


# --- Decoding and printing. ---

def fail(message):
    sys.stderr.write("decode_events.py: %s\n" % message)
    sys.exit(1)


def describe_value(value):
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        return "`%s`=%r" % (value.tag, value.simple_value)
    if kind == "histo":
        h = value.histo
        return ("`%s`=histo(num=%r, min=%r, max=%r, sum=%r, sum_squares=%r, limits=%r, "
                "counts=%r)" % (value.tag, h.num, h.min, h.max, h.sum, h.sum_squares,
                                list(h.bucket_limit), list(h.bucket)))
    if kind == "image":
        i = value.image
        if i.encoded_image_string[:8] != b"\x89PNG\r\n\x1a\n":
            fail("image `%s` is not a PNG (no PNG signature)" % value.tag)
        return "`%s`=image(%dx%d, colorspace=%d, %d bytes of PNG)" % (
            value.tag, i.width, i.height, i.colorspace, len(i.encoded_image_string))
    if kind == "tensor":
        t = value.tensor
        plugin = value.metadata.plugin_data.plugin_name if value.HasField("metadata") else None
        return "`%s`=tensor(dtype=%d, shape=%r, plugin=%r, string_val=%r)" % (
            value.tag, t.dtype, [d.size for d in t.tensor_shape.dim], plugin,
            [v.decode("utf-8", "replace") for v in t.string_val])
    fail("value `%s` holds none of simple_value, histo, image, tensor" % value.tag)
    return ""


def describe(event):
    kind = event.WhichOneof("what")
    if kind == "file_version":
        return 'file_version = "%s"' % event.file_version
    if kind in ("graph_def", "meta_graph_def"):
        return "%s (%d bytes)" % (kind, len(getattr(event, kind)))
    if kind == "session_log":
        log = event.session_log
        text = "session_log status=%s" % SessionStatus.values_by_number[log.status].name
        if log.checkpoint_path:
            text += ' checkpoint_path="%s"' % log.checkpoint_path
        return text
    if kind == "summary":
        return "summary: " + "; ".join(describe_value(v) for v in event.summary.value)
    fail("an event with no content")
    return ""


def main(argv):
    check_name = "--check-name" in argv
    paths = [a for a in argv[1:] if a != "--check-name"]
    if len(paths) != 1:
        fail("usage: decode_events.py [--check-name] <event file>")
    path = paths[0]
    with open(path, "rb") as f:
        data = f.read()

    name_seconds = None
    if check_name:
        match = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\.[^/]+", os.path.basename(path))
        if not match:
            fail("%s: not named events.out.tfevents.<10-digit secs>.<host>" % path)
        name_seconds = int(match.group(1))

    try:
        for index, (offset, payload) in enumerate(read_records(data, path)):
            event = Event()
            event.ParseFromString(payload)
            event.DiscardUnknownFields()  # Anything this decoder does not know makes a difference.
            if event.SerializeToString() != payload:
                fail("record %d at offset %d does not re-encode to the same bytes "
                     "(an unknown field, or fields out of order)" % (index, offset))
            if index == 0 and (event.WhichOneof("what") != "file_version"
                               or event.file_version != "brain.Event:2"):
                fail("record 0 is not file_version brain.Event:2")
            if (index == 0 and name_seconds is not None
                    and event.wall_time != float(name_seconds)):
                fail("record 0 wall_time %r is not the name's %d s"
                     % (event.wall_time, name_seconds))
            print("%d | %r | %d | %s" % (index, event.wall_time, event.step, describe(event)))
    except DamagedRecord as e:
        fail(str(e))


if __name__ == "__main__":
    main(sys.argv)
