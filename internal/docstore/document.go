package docstore

import (
	"encoding/json"
	"fmt"
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
	ID       string `json:"id"`
	TenantID string `json:"tenantId"`
	// TTL is the document's "ttl" in seconds: nil when absent, -1 for
	// forever.
	TTL *int `json:"ttl"`
}

// ParseHeader reads and checks the header of a document about to be
// written to partition pk. It rejects bodies that are not JSON objects,
// ids and partition keys a store cannot hold, a tenantId that differs from
// pk, and a ttl other than -1 or a positive number of seconds.
func ParseHeader(pk string, body []byte) (Header, error) {
	var h Header
	if err := json.Unmarshal(body, &h); err != nil {
		return Header{}, ErrInvalid(fmt.Errorf("docstore: document is not a JSON object: %w", err))
	}
	if err := CheckKey(pk, h.ID); err != nil {
		return Header{}, err
	}
	if h.TenantID != pk {
		return Header{}, invalid("document tenantId %q does not match partition %q", h.TenantID, pk)
	}
	if h.TTL != nil && *h.TTL != -1 && *h.TTL <= 0 {
		return Header{}, invalid("ttl must be -1 or positive, not %d", *h.TTL)
	}
	return h, nil
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
