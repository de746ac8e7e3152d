package i18n

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// catalogFiles holds the translations: catalog/<language>/<feature>.json,
// each a JSON object from message key to text. Translators edit these
// files; the texts are fmt formats (%s, %d, %[2]s), and a key names where
// its message is used.
//
//go:embed catalog
var catalogFiles embed.FS

// message is one key's text in each language.
type message struct{ en, ja string }

// catalog is every message, read from catalogFiles when the program starts.
// It is never written after that.
var catalog = mustLoad(catalogFiles)

// mustLoad returns load's catalog, or panics: the files are part of the
// binary, so a broken catalog is a build that must not run.
func mustLoad(fsys fs.FS) map[string]message {
	c, err := load(fsys)
	if err != nil {
		panic(err)
	}
	return c
}

// load reads the catalog files of both languages in fsys. It fails on a
// file that is not a JSON object of strings, on a key in two files of a
// language, on a key with an empty text and on a key that one language has
// and the other lacks, naming every such problem.
func load(fsys fs.FS) (map[string]message, error) {
	texts := map[string]map[string]string{} // language → key → text
	where := map[string]string{}            // language + key → file
	var errs []error
	for _, lang := range []string{English, Japanese} {
		texts[lang] = map[string]string{}
		files, err := fs.Glob(fsys, path.Join("catalog", lang, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			errs = append(errs, fmt.Errorf("i18n: no catalog files for %q", lang))
		}
		for _, file := range files {
			b, err := fs.ReadFile(fsys, file)
			if err != nil {
				return nil, err
			}
			var m map[string]string
			if err := json.Unmarshal(b, &m); err != nil {
				errs = append(errs, fmt.Errorf("i18n: %s: %w", file, err))
				continue
			}
			for key, text := range m {
				if first, ok := where[lang+"\x00"+key]; ok {
					errs = append(errs, fmt.Errorf("i18n: %s: key %q is also in %s", file, key, first))
					continue
				}
				where[lang+"\x00"+key] = file
				if strings.TrimSpace(text) == "" {
					errs = append(errs, fmt.Errorf("i18n: %s: key %q has no text", file, key))
				}
				texts[lang][key] = text
			}
		}
	}
	c := map[string]message{}
	for key, en := range texts[English] {
		c[key] = message{en: en, ja: texts[Japanese][key]}
	}
	for key := range texts[Japanese] {
		if _, ok := texts[English][key]; !ok {
			c[key] = message{ja: texts[Japanese][key]}
		}
	}
	keys := make([]string, 0, len(c))
	for key := range c {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		for _, lang := range []string{English, Japanese} {
			if _, ok := texts[lang][key]; !ok {
				errs = append(errs, fmt.Errorf("i18n: key %q has no %s text (it is in %s)", key, lang, where[other(lang)+"\x00"+key]))
			}
		}
	}
	return c, errors.Join(errs...)
}

// other returns the other supported language.
func other(lang string) string {
	if lang == English {
		return Japanese
	}
	return English
}
