// Package seal encrypts what leaves the database and holds personal data
// (backup archives: their parts and the file contents they keep) with age
// (X25519, https://age-encryption.org): to the current key, and opens with
// any key of the list, so that archives made before a rotation stay
// readable as long as their key is kept (docs/security.md, "Personal data
// at rest").
package seal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"filippo.io/age"

	"github.com/kanri/kanri/internal/kanri"
)

// header starts every sealed stream.
const header = "age-encryption.org/v1\n"

// Keys are the archive keys: the first seals, all open.
type Keys struct {
	current age.Recipient
	public  string
	ids     []age.Identity
}

// NewKey returns a new key, as its text (AGE-SECRET-KEY-1…).
func NewKey() string {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		panic(err) // the system's random source failed
	}
	return id.String()
}

// Parse reads keys from text: one AGE-SECRET-KEY-1… per line, the current
// one first; blank lines and lines starting with # are skipped.
func Parse(text string) (*Keys, error) {
	k := &Keys{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, err := age.ParseX25519Identity(line)
		if err != nil {
			return nil, fmt.Errorf("archive key on line %d: %w", i+1, err)
		}
		if k.current == nil {
			k.current, k.public = id.Recipient(), id.Recipient().String()
		}
		k.ids = append(k.ids, id)
	}
	if k.current == nil {
		return nil, errors.New("no archive key")
	}
	return k, nil
}

// Generated returns keys of one new key, for a process whose archives
// need not outlive it (tests).
func Generated() *Keys {
	k, err := Parse(NewKey())
	if err != nil {
		panic(err)
	}
	return k
}

// Recipient is the current key's public part (age1…), which names it.
func (k *Keys) Recipient() string { return k.public }

// Seal returns a writer that encrypts what is written to it into w; its
// Close writes the end and must be called.
func (k *Keys) Seal(w io.Writer) (io.WriteCloser, error) { return age.Encrypt(w, k.current) }

// Open returns what r holds: decrypted when it is sealed (with whichever
// key opens it), as it is otherwise (written before archives were sealed).
// A sealed r that no key opens is an error that says so.
func (k *Keys) Open(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	if !IsSealed(br) {
		return br, nil
	}
	d, err := age.Decrypt(br, k.ids...)
	var noMatch *age.NoIdentityMatchError
	if errors.As(err, &noMatch) {
		return nil, kanri.E(kanri.EINVALID, "backups.error.key")
	}
	return d, err
}

// IsSealed reports whether br's stream is sealed, without consuming it.
func IsSealed(br *bufio.Reader) bool {
	b, _ := br.Peek(len(header))
	return string(b) == header
}
