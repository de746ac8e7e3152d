package docstore

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxIDLength is the longest id or partition key a store accepts, in bytes
// (Cosmos DB's limit for ids).
const MaxIDLength = 255

// Header is what a backend needs to know about a document it is asked to
// write: its id, partition and own time to live.
type Header struct {
	ID       string
	TenantID string
	// TTL is the document's "ttl" in seconds: nil when absent, -1 for
	// forever.
	TTL *int
}

// MaxTTL is the longest "ttl" a document may have, in seconds: Cosmos DB's
// limit (about 68 years), which the embedded store follows.
const MaxTTL = 1<<31 - 1

// MaxIndexedBytes is the longest string a document may hold in a field
// its container indexes (each element, for an array's elements): the
// embedded store keeps indexed values in keys of bounded size, and both
// backends refuse the same documents.
const MaxIndexedBytes = 2048

// Document is a document about to be written, parsed once: its header and
// its top-level members, still encoded, for the backend's indexes.
type Document struct {
	Header
	Members map[string]json.RawMessage
}

// ParseHeader reads and checks the header of a document about to be
// written to partition pk (see Spec.Parse, which also checks the indexed
// fields).
func ParseHeader(pk string, body []byte) (Header, error) {
	d, err := parse(pk, body)
	return d.Header, err
}

// Parse parses a document about to be written to partition pk of the
// container, once, and checks it: a JSON object; an id and partition key
// a store can hold; a tenantId equal to pk; a ttl of -1 or 1 to MaxTTL
// seconds; and no indexed string over MaxIndexedBytes.
func (s Spec) Parse(pk string, body []byte) (Document, error) {
	d, err := parse(pk, body)
	if err != nil {
		return Document{}, err
	}
	var typ string
	if raw, ok := d.Members["type"]; ok {
		json.Unmarshal(raw, &typ)
	}
	for _, ix := range s.Indexes {
		if ix.Type != typ {
			continue
		}
		for _, f := range ix.Fields {
			path := strings.TrimSuffix(f, "[]")
			if n := longestString(d.Members, path); n > MaxIndexedBytes {
				return Document{}, ErrInvalid(fmt.Errorf("docstore: %s is %d bytes; an indexed field holds at most %d", path, n, MaxIndexedBytes))
			}
		}
	}
	return d, nil
}

// parse decodes body's top-level members (which checks that all of body
// is JSON) and the header from them.
func parse(pk string, body []byte) (Document, error) {
	var d Document
	if err := json.Unmarshal(body, &d.Members); err != nil || d.Members == nil {
		return Document{}, ErrInvalid(fmt.Errorf("docstore: document is not a JSON object: %v", err))
	}
	for name, dst := range map[string]*string{"id": &d.ID, "tenantId": &d.TenantID} {
		if raw, ok := d.Members[name]; ok && json.Unmarshal(raw, dst) != nil {
			return Document{}, invalid("%s must be a string", name)
		}
	}
	if err := CheckKey(pk, d.ID); err != nil {
		return Document{}, err
	}
	if d.TenantID != pk {
		return Document{}, invalid("document tenantId %q does not match partition %q", d.TenantID, pk)
	}
	if raw, ok := d.Members["ttl"]; ok && string(raw) != "null" {
		ttl, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || (ttl != -1 && (ttl <= 0 || ttl > MaxTTL)) {
			return Document{}, invalid("ttl must be -1 or a whole number of seconds from 1 to %d, not %s", MaxTTL, raw)
		}
		n := int(ttl)
		d.TTL = &n
	}
	return d, nil
}

// longestString returns the length of the longest string at the dotted
// path of members: the value itself, or the elements of an array.
func longestString(members map[string]json.RawMessage, path string) int {
	top, rest, nested := strings.Cut(path, ".")
	raw, ok := members[top]
	if !ok {
		return 0
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return 0
	}
	for nested {
		var part string
		part, rest, nested = strings.Cut(rest, ".")
		obj, ok := v.(map[string]any)
		if !ok {
			return 0
		}
		v = obj[part]
	}
	n := 0
	switch v := v.(type) {
	case string:
		n = len(v)
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				n = max(n, len(s))
			}
		}
	}
	return n
}

// CheckKey checks a partition key and id against the rules of Cosmos DB,
// which the embedded store follows too: non-empty, at most MaxIDLength
// bytes, valid UTF-8, and none of / \ ? # or control characters.
func CheckKey(pk, id string) error {
	for _, k := range []struct{ name, v string }{{"partition key", pk}, {"id", id}} {
		if k.v == "" || len(k.v) > MaxIDLength || !utf8.ValidString(k.v) {
			return invalid("%s must be 1 to %d bytes of UTF-8", k.name, MaxIDLength)
		}
		if strings.ContainsAny(k.v, `/\?#`) || strings.IndexFunc(k.v, unicode.IsControl) >= 0 {
			return invalid("%s %q has a forbidden character", k.name, k.v)
		}
	}
	return nil
}

// Normalize converts a Go filter value to the JSON value a store compares
// with: numbers become float64, kanri.Time becomes its stored string, and
// so on. Backends call it once per value per query.
func Normalize(v any) (any, error) {
	switch v := v.(type) {
	case nil, string, bool, float64:
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, ErrInvalid(fmt.Errorf("docstore: filter value is not JSON: %w", err))
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, ErrInvalid(fmt.Errorf("docstore: filter value is not JSON: %w", err))
	}
	return out, nil
}
