package api

import (
	"github.com/labstack/echo/v4"
)

// Prefix is the path of the API under the server's address.
const Prefix = "/api/v1"

// The response headers of the API.
const (
	HdrETag               = "ETag"
	HdrLocation           = "Location"
	hdrRateLimitLimit     = "RateLimit-Limit"
	hdrRateLimitRemaining = "RateLimit-Remaining"
	hdrRateLimitReset     = "RateLimit-Reset"
	hdrRetryAfter         = "Retry-After"
	hdrWWWAuthenticate    = "WWW-Authenticate"
	hdrLink               = "Link"
	hdrRequestID          = echo.HeaderXRequestID
	hdrAllowOrigin        = echo.HeaderAccessControlAllowOrigin
	hdrExposeHeaders      = echo.HeaderAccessControlExposeHeaders

	hdrContentDisposition   = "Content-Disposition"
	hdrAcceptRanges         = "Accept-Ranges"
	hdrContentRange         = "Content-Range"
	HdrTusResumable         = "Tus-Resumable"
	HdrTusVersion           = "Tus-Version"
	HdrTusExtension         = "Tus-Extension"
	HdrTusMaxSize           = "Tus-Max-Size"
	HdrTusChecksumAlgorithm = "Tus-Checksum-Algorithm"
	HdrUploadOffset         = "Upload-Offset"
	HdrUploadLength         = "Upload-Length"
	HdrUploadExpires        = "Upload-Expires"
	HdrUploadMetadata       = "Upload-Metadata"
	HdrKanriFileID          = "Kanri-File-Id"
)

// Example values of the document and the docs page.
const (
	ExampleUserID = "user_0b7c6f0e-3f4a-4c1e-9d55-2a8e6b1f4c10"
	exampleETag   = "00000a1b-0000-0d00-0000-65f1c2d30000"
	ExampleReqID  = "Yk3v9QeL2pXz7RtA0mNc"
	ExampleKeyID  = "apikey_1f2e3d4c5b6a79808f7e6d5c4b3a2918"

	ExampleFileID   = "file_3c9a1f0e7b2d4a6c8e5f1a2b3c4d5e6f"
	ExampleFolderID = "folder_8d2e4f6a1b3c5d7e9f0a2b4c6d8e0f1a"

	ExampleChannelID = "channel_5f0c2a9d7e4b6a8c1d3e5f7a9b0c2d4e"
	ExampleMessageID = "msg_1775035800000_3f9a1c0e7b2d"
)

// UploadsPath is the path of the API's tus uploads, under /api/v1.
const UploadsPath = "/uploads"
