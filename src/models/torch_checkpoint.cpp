#include "models/torch_checkpoint.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "core/error.hpp"

namespace seqfuse::models {
namespace {

// ---- the ZIP archive ---------------------------------------------------------

struct ZipEntry {
  std::uint64_t data_offset = 0;  // file offset of the entry's bytes
  std::uint64_t size = 0;
};

class ByteReader {
 public:
  ByteReader(std::span<const std::byte> bytes, const std::string& where)
      : bytes_(bytes), where_(where) {}
  [[nodiscard]] std::uint64_t le(std::uint64_t at, int width) const {
    need(at, static_cast<std::uint64_t>(width));
    std::uint64_t value = 0;
    for (int i = width - 1; i >= 0; --i)
      value = (value << 8) | static_cast<std::uint8_t>(bytes_[at + static_cast<unsigned>(i)]);
    return value;
  }
  [[nodiscard]] std::string_view text(std::uint64_t at, std::uint64_t n) const {
    need(at, n);
    return {reinterpret_cast<const char*>(bytes_.data() + at), static_cast<std::size_t>(n)};
  }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_.size(); }

 private:
  // Bytes [at, at + n) must lie inside the file.
  void need(std::uint64_t at, std::uint64_t n) const {
    if (at > bytes_.size() || bytes_.size() - at < n)
      throw Error(where_ +
                  " is truncated or not a PyTorch checkpoint (ZIP structure runs past "
                  "the end of the file)");
  }

  std::span<const std::byte> bytes_;
  const std::string& where_;
};

constexpr std::uint32_t kEndOfDirectory = 0x06054b50, kZip64Locator = 0x07064b50,
                        kZip64End = 0x06064b50, kDirectoryEntry = 0x02014b50,
                        kLocalHeader = 0x04034b50;

// Every entry of the archive by name, from its central directory (ZIP64
// too: checkpoints past 4 GB are common). Only stored entries are taken:
// torch.save never compresses, and mapping needs the bytes as they are.
std::map<std::string, ZipEntry, std::less<>> zip_entries(const ByteReader& zip,
                                                         const std::string& where) {
  // The end record is 22 bytes plus a comment of at most 65535.
  std::optional<std::uint64_t> end;
  const std::uint64_t size = zip.size();
  for (std::uint64_t back = 22; back <= std::min<std::uint64_t>(size, 22 + 65535); ++back)
    if (zip.le(size - back, 4) == kEndOfDirectory) {
      end = size - back;
      break;
    }
  if (!end) throw Error(where + " is truncated or not a PyTorch checkpoint (no ZIP directory)");
  std::uint64_t count = zip.le(*end + 10, 2);
  std::uint64_t directory = zip.le(*end + 16, 4);
  if (*end >= 20 && zip.le(*end - 20, 4) == kZip64Locator) {
    const std::uint64_t record = zip.le(*end - 20 + 8, 8);
    if (zip.le(record, 4) != kZip64End)
      throw Error(where + ": the ZIP64 directory locator points at no ZIP64 record");
    count = zip.le(record + 32, 8);
    directory = zip.le(record + 48, 8);
  }
  std::map<std::string, ZipEntry, std::less<>> entries;
  std::uint64_t at = directory;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (zip.le(at, 4) != kDirectoryEntry)
      throw Error(where + ": ZIP directory entry " + std::to_string(i + 1) + " is damaged");
    const std::uint64_t method = zip.le(at + 10, 2);
    std::uint64_t stored = zip.le(at + 20, 4), plain = zip.le(at + 24, 4);
    const std::uint64_t name_bytes = zip.le(at + 28, 2), extra_bytes = zip.le(at + 30, 2),
                        comment_bytes = zip.le(at + 32, 2);
    std::uint64_t local = zip.le(at + 42, 4);
    const std::string name(zip.text(at + 46, name_bytes));
    // ZIP64 extra field: the 64-bit values of the fields saturated above, in order.
    for (std::uint64_t x = at + 46 + name_bytes; x + 4 <= at + 46 + name_bytes + extra_bytes;) {
      const std::uint64_t id = zip.le(x, 2), n = zip.le(x + 2, 2);
      if (id == 1) {
        std::uint64_t field = x + 4;
        for (std::uint64_t* value : {&plain, &stored, &local})
          if (*value == 0xffffffffu && field + 8 <= x + 4 + n) {
            *value = zip.le(field, 8);
            field += 8;
          }
      }
      x += 4 + n;
    }
    if (method != 0)
      throw Error(where + ": entry '" + name + "' is compressed (ZIP method " +
                  std::to_string(method) + "); torch.save stores tensors uncompressed");
    if (stored != plain) throw Error(where + ": entry '" + name + "' has two different sizes");
    if (zip.le(local, 4) != kLocalHeader)
      throw Error(where + ": entry '" + name + "' points at no ZIP local header");
    const std::uint64_t data = local + 30 + zip.le(local + 26, 2) + zip.le(local + 28, 2);
    if (data > size || size - data < stored)
      throw Error(where + " is truncated: entry '" + name + "' runs past the end of the file");
    entries[name] = {data, stored};
    at += 46 + name_bytes + extra_bytes + comment_bytes;
  }
  return entries;
}

// ---- the restricted pickle reader ----------------------------------------------

struct Value;
using ValuePtr = std::shared_ptr<Value>;

struct StorageRef {
  std::string dtype;  // safetensors' spelling: F32, F16, BF16, ...
  std::size_t element_bytes = 0;
  std::string key;  // the entry PREFIX/data/KEY
  std::uint64_t elements = 0;
};

struct TensorRef {
  StorageRef storage;
  std::uint64_t offset = 0;  // in elements
  std::vector<std::uint64_t> shape, stride;
};

// What a checkpoint's pickle builds: numbers, strings, tuples, dicts, the
// allowed names, storages and tensors. Nothing else can be made.
struct Value {
  enum class Kind { none, boolean, integer, text, tuple, dict, name, storage, tensor } kind;
  std::int64_t number = 0;
  std::string string;                                  // text; name: "module.qualname"
  std::vector<ValuePtr> items;                         // tuple
  std::vector<std::pair<ValuePtr, ValuePtr>> entries;  // dict, in insertion order
  StorageRef storage;
  TensorRef tensor;
};

ValuePtr make(Value::Kind kind) {
  auto v = std::make_shared<Value>();
  v->kind = kind;
  return v;
}

const std::map<std::string_view, std::pair<const char*, std::size_t>>& storage_types() {
  static const std::map<std::string_view, std::pair<const char*, std::size_t>> types = {
      {"torch.FloatStorage", {"F32", 4}},     {"torch.HalfStorage", {"F16", 2}},
      {"torch.BFloat16Storage", {"BF16", 2}}, {"torch.DoubleStorage", {"F64", 8}},
      {"torch.LongStorage", {"I64", 8}},      {"torch.IntStorage", {"I32", 4}},
      {"torch.ShortStorage", {"I16", 2}},     {"torch.CharStorage", {"I8", 1}},
      {"torch.ByteStorage", {"U8", 1}},       {"torch.BoolStorage", {"BOOL", 1}}};
  return types;
}

class Unpickler {
 public:
  Unpickler(std::string_view code, const std::string& where) : code_(code), where_(where) {}

  ValuePtr run() {
    for (;;) {
      const auto op = static_cast<unsigned char>(byte());
      switch (op) {
        case 0x80:
          (void)byte();
          break;  // PROTO
        case 0x95:
          (void)bytes(8);
          break;  // FRAME
        case '.':
          return pop();  // STOP
        case '(':
          marks_.push_back(stack_.size());
          break;  // MARK
        case ')':
          push(make(Value::Kind::tuple));
          break;  // EMPTY_TUPLE
        case '}':
          push(make(Value::Kind::dict));
          break;  // EMPTY_DICT
        case 'N':
          push(make(Value::Kind::none));
          break;
        case 0x88:
          push(boolean(true));
          break;  // NEWTRUE
        case 0x89:
          push(boolean(false));
          break;  // NEWFALSE
        case 'K':
          push(integer(static_cast<std::int64_t>(unsigned_le(1))));
          break;  // BININT1
        case 'M':
          push(integer(static_cast<std::int64_t>(unsigned_le(2))));
          break;   // BININT2
        case 'J':  // BININT
          push(integer(static_cast<std::int32_t>(static_cast<std::uint32_t>(unsigned_le(4)))));
          break;
        case 0x8a:
          push(integer(long1()));
          break;  // LONG1
        case 'X':
          push(text(bytes(unsigned_le(4))));
          break;  // BINUNICODE
        case 0x8c:
          push(text(bytes(unsigned_le(1))));
          break;     // SHORT_BINUNICODE
        case 'c': {  // GLOBAL
          const std::string module = line(), name = line();
          push(global(module + "." + name));
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          const ValuePtr name = pop(), module = pop();
          if (name->kind != Value::Kind::text || module->kind != Value::Kind::text)
            refuse("a name");
          push(global(module->string + "." + name->string));
          break;
        }
        case 'q':
          memo_put(unsigned_le(1));
          break;  // BINPUT
        case 'r':
          memo_put(unsigned_le(4));
          break;  // LONG_BINPUT
        case 0x94:
          memo_put(memo_.size());
          break;  // MEMOIZE
        case 'h':
          push(memo_get(unsigned_le(1)));
          break;  // BINGET
        case 'j':
          push(memo_get(unsigned_le(4)));
          break;  // LONG_BINGET
        case 't':
          push(tuple(pop_mark()));
          break;  // TUPLE
        case 0x85:
          push(tuple(pop_n(1)));
          break;  // TUPLE1
        case 0x86:
          push(tuple(pop_n(2)));
          break;  // TUPLE2
        case 0x87:
          push(tuple(pop_n(3)));
          break;  // TUPLE3
        case 'Q':
          push(persistent(pop()));
          break;     // BINPERSID
        case 'R': {  // REDUCE
          const ValuePtr args = pop(), callable = pop();
          push(reduce(*callable, *args));
          break;
        }
        case 's': {  // SETITEM
          const ValuePtr value = pop(), key = pop();
          set_items(peek(), {key, value});
          break;
        }
        case 'u': {  // SETITEMS
          const std::vector<ValuePtr> pairs = pop_mark();
          if (pairs.size() % 2 != 0) fail("SETITEMS with an odd number of values");
          const ValuePtr dict = peek();
          for (std::size_t i = 0; i < pairs.size(); i += 2)
            set_items(dict, {pairs[i], pairs[i + 1]});
          break;
        }
        case 'b': {  // BUILD: only a dict's state (state_dict._metadata), dropped
          const ValuePtr state = pop();
          if (peek()->kind != Value::Kind::dict) refuse("BUILD of a non-dict object");
          (void)state;
          break;
        }
        default:
          fail("pickle opcode 0x" + hex(op) + " is not one a checkpoint of tensors uses");
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(where_ + ": data.pkl: " + what + " (at byte " + std::to_string(at_) + ")");
  }
  [[noreturn]] void refuse(const std::string& what) const {
    fail(what +
         " is refused: a checkpoint of weights needs none, and seqfuse runs no pickled "
         "code");
  }
  static std::string hex(unsigned value) {
    const char* digits = "0123456789abcdef";
    return {digits[(value >> 4) & 15], digits[value & 15]};
  }

  char byte() {
    if (at_ >= code_.size()) fail("the pickle ends before its STOP");
    return code_[at_++];
  }
  std::string_view bytes(std::uint64_t n) {
    if (code_.size() - at_ < n) fail("the pickle ends inside a value");
    const std::string_view out = code_.substr(at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
    return out;
  }
  std::uint64_t unsigned_le(int width) {
    const std::string_view b = bytes(static_cast<std::uint64_t>(width));
    std::uint64_t value = 0;
    for (int i = width - 1; i >= 0; --i)
      value = (value << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(i)]);
    return value;
  }
  std::int64_t long1() {
    const std::uint64_t n = unsigned_le(1);
    if (n > 8) fail("an integer of " + std::to_string(n) + " bytes");
    if (n == 0) return 0;
    std::uint64_t value = unsigned_le(static_cast<int>(n));
    if (n < 8 && (value >> (8 * n - 1)) != 0) value |= ~std::uint64_t{0} << (8 * n);  // sign
    return static_cast<std::int64_t>(value);
  }
  std::string line() {
    const std::size_t end = code_.find('\n', at_);
    if (end == std::string_view::npos) fail("a GLOBAL without its newline");
    std::string out(code_.substr(at_, end - at_));
    at_ = end + 1;
    return out;
  }

  void push(ValuePtr v) {
    if (stack_.size() > (1u << 20)) fail("a stack deeper than any checkpoint's");
    stack_.push_back(std::move(v));
  }
  ValuePtr pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back()))
      fail("the pickle takes more values than it pushed");
    ValuePtr v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  [[nodiscard]] ValuePtr peek() const {
    if (stack_.empty()) fail("the pickle takes more values than it pushed");
    return stack_.back();
  }
  std::vector<ValuePtr> pop_n(std::size_t n) {
    std::vector<ValuePtr> out(n);
    for (std::size_t i = n; i-- > 0;) out[i] = pop();
    return out;
  }
  std::vector<ValuePtr> pop_mark() {
    if (marks_.empty()) fail("a MARK is missing");
    const std::size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<ValuePtr> out(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    stack_.resize(mark);
    return out;
  }
  void memo_put(std::uint64_t index) {
    if (index > (1u << 24)) fail("a memo index past any checkpoint's");
    if (memo_.size() <= index) memo_.resize(static_cast<std::size_t>(index) + 1);
    memo_[static_cast<std::size_t>(index)] = peek();
  }
  ValuePtr memo_get(std::uint64_t index) const {
    if (index >= memo_.size() || !memo_[static_cast<std::size_t>(index)])
      fail("a memo entry read before it was written");
    return memo_[static_cast<std::size_t>(index)];
  }

  static ValuePtr boolean(bool b) {
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::boolean;
    v->number = b ? 1 : 0;
    return v;
  }
  static ValuePtr integer(std::int64_t n) {
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::integer;
    v->number = n;
    return v;
  }
  static ValuePtr text(std::string_view s) {
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::text;
    v->string = s;
    return v;
  }
  static ValuePtr tuple(std::vector<ValuePtr> items) {
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::tuple;
    v->items = std::move(items);
    return v;
  }
  ValuePtr global(const std::string& name) const {
    static const std::string_view allowed[] = {"collections.OrderedDict",
                                               "torch._utils._rebuild_tensor_v2",
                                               "torch._utils._rebuild_parameter"};
    if (std::find(std::begin(allowed), std::end(allowed), name) == std::end(allowed) &&
        storage_types().count(name) == 0)
      refuse("the name '" + name + "'");
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::name;
    v->string = name;
    return v;
  }

  // ('storage', torch.FloatStorage, KEY, LOCATION, ELEMENTS)
  ValuePtr persistent(const ValuePtr& id) const {
    const auto& t = id->items;
    if (id->kind != Value::Kind::tuple || t.size() != 5 || t[0]->kind != Value::Kind::text ||
        t[0]->string != "storage" || t[1]->kind != Value::Kind::name ||
        t[2]->kind != Value::Kind::text || t[4]->kind != Value::Kind::integer || t[4]->number < 0)
      fail("a persistent id that is not a tensor storage");
    const auto type = storage_types().find(t[1]->string);
    if (type == storage_types().end()) fail("'" + t[1]->string + "' is not a storage type");
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::storage;
    v->storage = {type->second.first, type->second.second, t[2]->string,
                  static_cast<std::uint64_t>(t[4]->number)};
    return v;
  }

  std::vector<std::uint64_t> sizes(const Value& v, const char* what) const {
    if (v.kind != Value::Kind::tuple) fail(std::string("a tensor's ") + what + " is not a tuple");
    std::vector<std::uint64_t> out;
    for (const ValuePtr& item : v.items) {
      if (item->kind != Value::Kind::integer || item->number < 0)
        fail(std::string("a tensor's ") + what + " holds a negative or non-integer value");
      out.push_back(static_cast<std::uint64_t>(item->number));
    }
    return out;
  }

  ValuePtr reduce(const Value& callable, const Value& args) const {
    if (callable.kind != Value::Kind::name || args.kind != Value::Kind::tuple)
      fail("a call of something other than an allowed name");
    if (callable.string == "collections.OrderedDict") {
      if (!args.items.empty()) refuse("OrderedDict with arguments");
      return make(Value::Kind::dict);
    }
    if (callable.string == "torch._utils._rebuild_parameter") {  // (tensor, grad, hooks)
      if (args.items.empty() || args.items[0]->kind != Value::Kind::tensor)
        fail("_rebuild_parameter without a tensor");
      return args.items[0];
    }
    if (callable.string != "torch._utils._rebuild_tensor_v2")
      refuse("a call of '" + callable.string + "'");
    // (storage, storage_offset, size, stride, requires_grad, hooks[, metadata])
    const auto& a = args.items;
    if (a.size() < 4 || a[0]->kind != Value::Kind::storage || a[1]->kind != Value::Kind::integer ||
        a[1]->number < 0)
      fail("_rebuild_tensor_v2 with arguments other than a storage, offset, size and stride");
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::tensor;
    v->tensor.storage = a[0]->storage;
    v->tensor.offset = static_cast<std::uint64_t>(a[1]->number);
    v->tensor.shape = sizes(*a[2], "size");
    v->tensor.stride = sizes(*a[3], "stride");
    if (v->tensor.shape.size() != v->tensor.stride.size())
      fail("a tensor whose size and stride differ in length");
    return v;
  }

  void set_items(const ValuePtr& dict, std::pair<ValuePtr, ValuePtr> item) const {
    if (dict->kind != Value::Kind::dict) fail("SETITEM on something that is not a dict");
    dict->entries.push_back(std::move(item));  // the memo shares it: every holder sees it
  }

  std::string_view code_;
  const std::string& where_;
  std::size_t at_ = 0;
  std::vector<ValuePtr> stack_;
  std::vector<std::size_t> marks_;
  std::vector<ValuePtr> memo_;
};

// A tensor's byte range within its storage entry; refused unless it is a
// contiguous row-major view (dimensions of size 1 may have any stride).
TensorInfo tensor_info(const std::string& name, const TensorRef& t, const ZipEntry& entry,
                       const std::string& where) {
  const std::string at = where + ": tensor '" + name + "'";
  TensorInfo info;
  info.name = name;
  info.dtype = t.storage.dtype;
  info.element_bytes = t.storage.element_bytes;
  info.shape = t.shape;
  std::uint64_t expected = 1, elements = 1;
  for (std::size_t d = t.shape.size(); d-- > 0;) {
    if (t.shape[d] != 1 && t.stride[d] != expected)
      throw Error(at + " is not contiguous in its storage (save it after .contiguous())");
    if (__builtin_mul_overflow(expected, t.shape[d], &expected) ||
        __builtin_mul_overflow(elements, t.shape[d], &elements))
      throw Error(at + ": its shape is too large");
  }
  std::uint64_t first = 0, bytes = 0, storage_bytes = 0;
  if (__builtin_mul_overflow(t.offset, info.element_bytes, &first) ||
      __builtin_mul_overflow(elements, info.element_bytes, &bytes) ||
      __builtin_mul_overflow(t.storage.elements, info.element_bytes, &storage_bytes))
    throw Error(at + ": its size is too large");
  if (storage_bytes != entry.size)
    throw Error(at + ": storage '" + t.storage.key + "' holds " + std::to_string(entry.size) +
                " bytes, the pickle says " + std::to_string(storage_bytes));
  if (first > entry.size || entry.size - first < bytes)
    throw Error(at + " runs past the end of its storage '" + t.storage.key + "'");
  info.begin = entry.data_offset + first;
  info.end = info.begin + bytes;
  return info;
}

}  // namespace

bool looks_like_zip(std::span<const std::byte> file) noexcept {
  return file.size() >= 4 && std::memcmp(file.data(), "PK\3\4", 4) == 0;
}

std::vector<TensorInfo> torch_checkpoint_tensors(std::span<const std::byte> file,
                                                 const std::string& where) {
  const ByteReader zip(file, where);
  const auto entries = zip_entries(zip, where);
  // PREFIX/data.pkl: the prefix is the archive's name at saving time.
  std::string prefix;
  const ZipEntry* pickle = nullptr;
  for (const auto& [name, entry] : entries) {
    const std::size_t slash = name.find('/');
    if (slash != std::string::npos && name.substr(slash) == "/data.pkl") {
      if (pickle != nullptr) throw Error(where + " holds two data.pkl entries");
      prefix = name.substr(0, slash + 1);
      pickle = &entry;
    }
  }
  if (pickle == nullptr)
    throw Error(where + " is a ZIP archive without data.pkl: not a PyTorch checkpoint");
  const std::string_view code(reinterpret_cast<const char*>(file.data() + pickle->data_offset),
                              static_cast<std::size_t>(pickle->size));
  const ValuePtr root = Unpickler(code, where).run();
  if (root->kind != Value::Kind::dict)
    throw Error(where +
                ": data.pkl holds no dict of tensors (a whole pickled model is refused: "
                "save its state_dict)");
  std::vector<TensorInfo> tensors;
  for (const auto& [key, value] : root->entries) {
    if (key->kind != Value::Kind::text || value->kind != Value::Kind::tensor) continue;
    const auto entry = entries.find(prefix + "data/" + value->tensor.storage.key);
    if (entry == entries.end())
      throw Error(where + ": tensor '" + key->string + "' names storage '" +
                  value->tensor.storage.key + "', which the archive lacks");
    tensors.push_back(tensor_info(key->string, value->tensor, entry->second, where));
  }
  std::sort(tensors.begin(), tensors.end(),
            [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < tensors.size(); ++i)
    if (tensors[i].name == tensors[i - 1].name)
      throw Error(where + ": tensor '" + tensors[i].name + "' appears twice");
  return tensors;
}

}  // namespace seqfuse::models
