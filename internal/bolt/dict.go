package bolt

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	bbolt "go.etcd.io/bbolt"
)

// Documents' bodies are stored compressed (zstd) against a dictionary: a
// short JSON document shares little with itself but most of its bytes
// (member names, the tenant's id, the type, the schema version, the shape
// of times and ids) with the other documents of its type, so that a
// message of about 450 bytes keeps about 150 (BenchmarkStoreSize).
//
// The dictionary is made of the shapes of the store's own documents: the
// first body of each kind (container and type) the store writes adds its
// skeleton (skeleton: its member names and structure, its type and schema
// version, every other value blank, so that no value is kept there, nor
// one of a write that rolled back; member names are, a map's keys too),
// until it holds maxDictBytes. A dictionary is never changed once a record names it:
// adding a kind makes a new generation (the old content and the new
// skeleton), with the next id, and records name the generation they were
// compressed with. Every generation is kept in the meta bucket
// (dictKey(id): the kinds it covers, then its content) and loaded on open,
// so that any record can be read; only the latest compresses.

// maxDictBytes bounds a dictionary's content: the kinds written after it
// is full are compressed with it as it is (their member names and ids
// still match). The encoder finds matches over this much history.
const maxDictBytes = 32 << 10

// maxPackBytes is the largest body pack compresses: a larger one gains
// little from a dictionary of small documents, and is stored as it is.
const maxPackBytes = 1 << 20

// dictPrefix begins the meta keys of the dictionaries.
const dictPrefix = "dict:"

func dictKey(id uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte(dictPrefix), id)
}

// dictionary is one generation.
type dictionary struct {
	id      uint32
	kinds   []string // container + "\x00" + type, of each skeleton in content
	content []byte
}

// encodeValue is the dictionary's meta value: the number of kinds, each
// kind's length and bytes (uvarints before), then the content.
func (d *dictionary) encodeValue() []byte {
	v := binary.AppendUvarint(nil, uint64(len(d.kinds)))
	for _, k := range d.kinds {
		v = binary.AppendUvarint(v, uint64(len(k)))
		v = append(v, k...)
	}
	return append(v, d.content...)
}

func decodeDictionary(id uint32, v []byte) (*dictionary, error) {
	d := &dictionary{id: id}
	n, size := binary.Uvarint(v)
	if size <= 0 {
		return nil, fmt.Errorf("bolt: corrupt dictionary %d", id)
	}
	v = v[size:]
	for range n {
		l, size := binary.Uvarint(v)
		if size <= 0 || uint64(len(v)-size) < l {
			return nil, fmt.Errorf("bolt: corrupt dictionary %d", id)
		}
		d.kinds = append(d.kinds, string(v[size:size+int(l)]))
		v = v[size+int(l):]
	}
	d.content = bytes.Clone(v)
	return d, nil
}

// codec compresses and decompresses bodies. Writes come one transaction
// at a time (bbolt's), reads from any goroutine.
type codec struct {
	// state is what reads use: every generation and a decoder that knows
	// them all; replaced whole when a generation is added.
	state atomic.Pointer[codecState]

	mu  sync.Mutex // the encoder and unfit, used by writes
	enc *zstd.Encoder
	// unfit holds the kinds whose skeleton the latest generation had no
	// room for: it never will, content only grows.
	unfit map[string]bool
	// encID is the generation the encoder compresses with (0: none yet).
	encID uint32
}

type codecState struct {
	all    []*dictionary // by id
	dicts  map[uint32]*dictionary
	latest *dictionary // nil before the first write
	dec    *zstd.Decoder
}

// newCodec returns a codec of the generations dicts.
func newCodec(dicts []*dictionary) (*codec, error) {
	c := &codec{}
	if err := c.publish(dicts); err != nil {
		return nil, err
	}
	return c, nil
}

// publish makes dicts (every generation, in order) what reads use.
func (c *codec) publish(dicts []*dictionary) error {
	st := &codecState{all: dicts, dicts: make(map[uint32]*dictionary, len(dicts))}
	opts := []zstd.DOption{zstd.WithDecoderConcurrency(0), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(64 << 20)}
	for _, d := range dicts {
		st.dicts[d.id] = d
		st.latest = d
		opts = append(opts, zstd.WithDecoderDictRaw(d.id, d.content))
	}
	dec, err := zstd.NewReader(nil, opts...)
	if err != nil {
		return fmt.Errorf("bolt: decoder: %w", err)
	}
	st.dec = dec
	c.state.Store(st)
	return nil
}

// loadCodec reads every generation from the meta bucket.
func loadCodec(tx *bbolt.Tx) (*codec, error) {
	var dicts []*dictionary
	cur := tx.Bucket(metaBucket).Cursor()
	for k, v := cur.Seek([]byte(dictPrefix)); k != nil && bytes.HasPrefix(k, []byte(dictPrefix)); k, v = cur.Next() {
		if len(k) != len(dictPrefix)+4 {
			return nil, fmt.Errorf("bolt: corrupt dictionary key %q", k)
		}
		d, err := decodeDictionary(binary.BigEndian.Uint32(k[len(dictPrefix):]), v)
		if err != nil {
			return nil, err
		}
		dicts = append(dicts, d)
	}
	return newCodec(dicts)
}

// pack compresses body, a document of kind (container + "\x00" + type),
// in the write transaction tx: it returns the generation it used and the
// compressed bytes, or 0 and body itself when compressing would not make
// it shorter (or body is over maxPackBytes). The first body of a kind
// makes a new generation with its skeleton while there is room; tx saves
// the generation it uses unless the meta bucket has it (it was made by a
// transaction that rolled back: it holds no data, only shapes).
func (c *codec) pack(tx *bbolt.Tx, kind string, body []byte) (uint32, []byte, error) {
	if len(body) > maxPackBytes {
		return 0, body, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state.Load()
	d := st.latest
	if (d == nil || !slices.Contains(d.kinds, kind)) && !c.unfit[kind] {
		sk := skeleton(body)
		if d == nil && len(sk) <= maxDictBytes || d != nil && len(d.content)+len(sk) <= maxDictBytes {
			next := &dictionary{id: 1, kinds: []string{kind}, content: sk}
			if d != nil {
				next.id = d.id + 1
				next.kinds = append(slices.Clone(d.kinds), kind)
				next.content = append(slices.Clone(d.content), sk...)
			}
			if err := c.publish(append(slices.Clip(st.all), next)); err != nil {
				return 0, nil, err
			}
			d = next
		} else {
			if c.unfit == nil {
				c.unfit = map[string]bool{}
			}
			c.unfit[kind] = true
		}
	}
	if d == nil {
		return 0, body, nil
	}
	if meta := tx.Bucket(metaBucket); meta.Get(dictKey(d.id)) == nil {
		if err := meta.Put(dictKey(d.id), d.encodeValue()); err != nil {
			return 0, nil, err
		}
	}
	if c.encID != d.id {
		var err error
		opts := []zstd.EOption{zstd.WithEncoderDictRaw(d.id, d.content)}
		if c.enc == nil {
			// Without entropy coding of the literals a document is about
			// a tenth larger and decompresses four times as fast (0.5
			// rather than 2 µs for a message): every read decompresses.
			c.enc, err = zstd.NewWriter(nil, append(opts, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
				zstd.WithEncoderCRC(false), zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(maxDictBytes), zstd.WithNoEntropyCompression(true))...)
		} else {
			err = c.enc.ResetWithOptions(nil, opts...)
		}
		if err != nil {
			c.enc, c.encID = nil, 0
			return 0, nil, fmt.Errorf("bolt: encoder: %w", err)
		}
		c.encID = d.id
	}
	packed := c.enc.EncodeAll(body, nil)
	if len(packed) >= len(body) {
		return 0, body, nil
	}
	return d.id, packed, nil
}

// unpack returns the body that pack compressed with generation id.
func (c *codec) unpack(id uint32, packed []byte) ([]byte, error) {
	return c.unpackInto(id, packed, nil)
}

// unpackInto is unpack appending the body to dst.
func (c *codec) unpackInto(id uint32, packed, dst []byte) ([]byte, error) {
	st := c.state.Load()
	if st.dicts[id] == nil {
		return nil, fmt.Errorf("bolt: record compressed with dictionary %d, which the store does not have", id)
	}
	body, err := st.dec.DecodeAll(packed, dst)
	if err != nil {
		return nil, fmt.Errorf("bolt: corrupt compressed record: %w", err)
	}
	return body, nil
}

// skeleton returns the shape of JSON document body: its members and
// structure as they are, the values of its top-level "type" and
// "schemaVersion", and every other string "" and number 0. It returns
// nil for what is not JSON.
func skeleton(body []byte) []byte {
	type frame struct {
		object, expectKey bool
		items             int
	}
	var (
		stack []frame
		out   = make([]byte, 0, len(body))
		key   string // the member whose value comes next, at the top level
	)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	// item writes the separator before an item of the innermost container.
	item := func() {
		if n := len(stack); n > 0 {
			f := &stack[n-1]
			if f.object && !f.expectKey {
				return // a member's value follows its name
			}
			if f.items > 0 {
				out = append(out, ',')
			}
			f.items++
		}
	}
	// done marks a value written: an object next expects a name.
	done := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].expectKey = true
		}
	}
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			return nil
		}
		switch v := t.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				item()
				out = append(out, byte(v))
				stack = append(stack, frame{object: v == '{', expectKey: v == '{'})
			default:
				out = append(out, byte(v))
				stack = stack[:len(stack)-1]
				done()
			}
			continue
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
				item()
				out = strconv.AppendQuote(out, v)
				out = append(out, ':')
				stack[n-1].expectKey = false
				if n == 1 {
					key = v
				}
				continue
			}
			item()
			if len(stack) == 1 && (key == "type" || key == "schemaVersion") {
				out = strconv.AppendQuote(out, v)
			} else {
				out = append(out, `""`...)
			}
		case json.Number:
			item()
			out = append(out, '0')
		case bool:
			item()
			out = strconv.AppendBool(out, v)
		case nil:
			item()
			out = append(out, "null"...)
		}
		done()
	}
}

// kindOf returns the kind of a document of container: the container's
// name and the document's "type".
func kindOf(container []byte, members map[string]json.RawMessage) string {
	var typ string
	if raw, ok := members["type"]; ok {
		if json.Unmarshal(raw, &typ) != nil {
			typ = ""
		}
	}
	return string(container) + "\x00" + typ
}
