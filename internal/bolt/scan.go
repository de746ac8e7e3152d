package bolt

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

var errSyntax = errors.New("bolt: malformed stored document")

// lazyDoc gives a query the fields it asks for without decoding the whole
// document. Most queries touch two or three fields of documents with a
// dozen; encoding/json would decode them all for every document scanned.
type lazyDoc struct {
	raw    map[string][]byte // top-level members the query needs, still encoded
	values map[string]any    // decoded members
}

// newLazyDoc scans body once and keeps the top-level members named in
// need. Bodies are validated JSON (put checks), so the scanner only has to
// find member boundaries.
func newLazyDoc(body []byte, need map[string]bool) (*lazyDoc, error) {
	d := &lazyDoc{raw: make(map[string][]byte, len(need))}
	err := scanMembers(body, func(key, val []byte) {
		if bytes.IndexByte(key, '\\') < 0 {
			if need[string(key)] { // no allocation for the lookup
				d.raw[string(key)] = val
			}
			return
		}
		var k string
		if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &k) == nil && need[k] {
			d.raw[k] = val
		}
	})
	return d, err
}

// lazyDocOf makes a lazyDoc of members already split out of a document
// (docstore.Document.Members), keeping those named in need.
func lazyDocOf(members map[string]json.RawMessage, need map[string]bool) *lazyDoc {
	d := &lazyDoc{raw: make(map[string][]byte, len(need))}
	for k := range need {
		if v, ok := members[k]; ok {
			d.raw[k] = v
		}
	}
	return d
}

// get returns the value at a dotted path.
func (d *lazyDoc) get(path string) (any, bool) {
	top, rest, nested := cut(path)
	v, ok := d.values[top]
	if !ok {
		raw, present := d.raw[top]
		if !present {
			return nil, false
		}
		var err error
		if v, err = decodeValue(raw); err != nil {
			return nil, false
		}
		if d.values == nil {
			d.values = make(map[string]any, len(d.raw))
		}
		d.values[top] = v
	}
	for nested {
		var part string
		part, rest, nested = cut(rest)
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[part]; !ok {
			return nil, false
		}
	}
	return v, true
}

func cut(path string) (string, string, bool) {
	if i := bytes.IndexByte([]byte(path), '.'); i >= 0 {
		return path[:i], path[i+1:], true
	}
	return path, "", false
}

// decodeValue decodes one JSON value, with fast paths for the scalars that
// filters compare.
func decodeValue(raw []byte) (any, error) {
	switch raw[0] {
	case '"':
		if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
			return string(s), nil
		}
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	case '{', '[':
	default:
		return strconv.ParseFloat(string(raw), 64)
	}
	var v any
	err := json.Unmarshal(raw, &v)
	return v, err
}

// scanMembers calls fn with the raw key (without quotes) and raw value of
// each top-level member of the JSON object in b.
func scanMembers(b []byte, fn func(key, val []byte)) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return errSyntax
		}
		end, err := skipString(b, i)
		if err != nil {
			return err
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return errSyntax
		}
		start := skipSpace(b, i+1)
		end, err = skipValue(b, start)
		if err != nil {
			return err
		}
		fn(key, b[start:end])
		i = skipSpace(b, end)
		if i >= len(b) {
			return errSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return nil
		default:
			return errSyntax
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts at b[i].
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errSyntax
}

// skipValue returns the index just past the value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errSyntax
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
		j++
	}
	if j == i {
		return 0, errSyntax
	}
	return j, nil
}
