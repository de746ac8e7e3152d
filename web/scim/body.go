package scim

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/scim"
)

// BodyLimit is the largest request body.
const BodyLimit = 64 << 10

// contentType is SCIM's media type.
const contentType = "application/scim+json"

func write(c echo.Context, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.Blob(status, contentType, b)
}

// read decodes the request's JSON body into v.
func read(c echo.Context, v any) error {
	body := http.MaxBytesReader(c.Response(), c.Request().Body, BodyLimit)
	b, err := io.ReadAll(body)
	if err != nil {
		return &scim.Error{Status: http.StatusRequestEntityTooLarge, Detail: "the body is larger than 64 KiB"}
	}
	if err := json.Unmarshal(b, v); err != nil {
		var se *scim.Error
		if errors.As(err, &se) {
			return se
		}
		return &scim.Error{Status: http.StatusBadRequest, SCIMType: "invalidSyntax", Detail: "the body is not the JSON expected: " + err.Error()}
	}
	return nil
}
