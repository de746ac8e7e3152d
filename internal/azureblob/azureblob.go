// Package azureblob is the blob store driver over Azure Blob Storage, for
// Kanri on more than one machine: every instance reads and writes the same
// container through the official SDK (azblob).
//
// A blob of the port is a block blob of the same name in one container.
// Put streams the bytes as blocks and commits them at the end, so a blob
// appears whole or not at all; staged blocks are Azure's uncommitted blocks
// (their ids base64-encoded, as Azure requires), which Azure itself drops
// when the blob is committed and after seven days otherwise.
package azureblob

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	azblobpkg "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/kanri/kanri/internal/blob"
)

// Config says which account and container to use: a connection string, or
// an endpoint with an account name and key.
type Config struct {
	// ConnectionString is an Azure Storage connection string
	// ("DefaultEndpointsProtocol=…;AccountName=…;AccountKey=…;…").
	ConnectionString string
	// Endpoint is the account's blob endpoint, such as
	// https://ACCOUNT.blob.core.windows.net/, used with Account and Key
	// when ConnectionString is empty.
	Endpoint string
	// Account and Key are the account's name and shared key.
	Account, Key string
	// Container is the container holding Kanri's blobs; created if
	// missing.
	Container string
	// HTTPClient, when set, sends the requests (tests use it for a
	// loopback server); the SDK's default otherwise.
	HTTPClient *http.Client
}

// putBlockSize is the size of the blocks Put streams a blob in; two are
// in flight at a time, so a Put holds at most 8 MiB.
const putBlockSize = 4 << 20

// Driver stores blobs in an Azure Blob Storage container.
type Driver struct {
	c *container.Client
}

var _ blob.Driver = (*Driver)(nil)

// New connects to the container cfg names, creating it if it is missing.
func New(ctx context.Context, cfg Config) (*Driver, error) {
	if cfg.Container == "" {
		return nil, errors.New("azureblob: no container name")
	}
	opts := &container.ClientOptions{}
	if cfg.HTTPClient != nil {
		opts.Transport = cfg.HTTPClient
	}
	// The SDK retries each operation; a try that hangs must not hold an
	// upload forever.
	opts.Retry = policy.RetryOptions{MaxRetries: 3, TryTimeout: 2 * time.Minute}
	var (
		c   *container.Client
		err error
	)
	switch {
	case cfg.ConnectionString != "":
		c, err = container.NewClientFromConnectionString(cfg.ConnectionString, cfg.Container, opts)
	case cfg.Endpoint != "" && cfg.Account != "" && cfg.Key != "":
		var cred *container.SharedKeyCredential
		cred, err = container.NewSharedKeyCredential(cfg.Account, cfg.Key)
		if err == nil {
			c, err = container.NewClientWithSharedKeyCredential(strings.TrimSuffix(cfg.Endpoint, "/")+"/"+cfg.Container, cred, opts)
		}
	default:
		return nil, errors.New("azureblob: give a connection string, or an endpoint with an account name and key")
	}
	if err != nil {
		return nil, fmt.Errorf("azureblob: %w", err)
	}
	if _, err := c.Create(ctx, nil); err != nil && !bloberror.HasCode(err, bloberror.ContainerAlreadyExists) {
		return nil, fmt.Errorf("azureblob: create the container %q: %w", cfg.Container, err)
	}
	return &Driver{c: c}, nil
}

// blockID encodes a port block id as Azure wants it (base64).
func blockID(id string) string { return base64.StdEncoding.EncodeToString([]byte(id)) }

// Put implements blob.Driver: the bytes go up as staged blocks committed
// at the end.
func (d *Driver) Put(ctx context.Context, name string, r io.Reader) (int64, error) {
	cr := &countingReader{r: r}
	_, err := d.c.NewBlockBlobClient(name).UploadStream(ctx, cr, &blockblob.UploadStreamOptions{
		BlockSize:   putBlockSize,
		Concurrency: 2,
	})
	if err != nil {
		return 0, err
	}
	return cr.n, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// StageBlock implements blob.Driver.
func (d *Driver) StageBlock(ctx context.Context, name, id string, data []byte) error {
	_, err := d.c.NewBlockBlobClient(name).StageBlock(ctx, blockID(id), streaming.NopCloser(bytes.NewReader(data)), nil)
	return err
}

// SyncBlocks implements blob.Driver: a staged block is stored once
// StageBlock returns.
func (d *Driver) SyncBlocks(ctx context.Context, name string) error { return nil }

// CommitBlocks implements blob.Driver. Azure drops the uncommitted blocks
// that are not listed.
func (d *Driver) CommitBlocks(ctx context.Context, name string, ids []string) (int64, error) {
	encoded := make([]string, len(ids))
	for i, id := range ids {
		encoded[i] = blockID(id)
	}
	bb := d.c.NewBlockBlobClient(name)
	if _, err := bb.CommitBlockList(ctx, encoded, nil); err != nil {
		if bloberror.HasCode(err, bloberror.InvalidBlockList, bloberror.InvalidBlockID) {
			return 0, fmt.Errorf("azureblob: commit %s: a block was not staged: %w", name, err)
		}
		return 0, err
	}
	props, err := bb.GetProperties(ctx, nil)
	if err != nil {
		return 0, err
	}
	return deref(props.ContentLength), nil
}

// DiscardBlocks implements blob.Driver. Azure has no call that drops
// uncommitted blocks; committing a block list does. When no blob exists, an
// empty blob is committed (only if there still is none) and deleted (only
// if it is still that one); when a blob exists and blocks are staged, its
// own block list is committed again (only if the blob is unchanged
// meanwhile). A blob written in one request has no block list to recommit:
// blocks staged for it are left to Azure, which drops them after seven days.
func (d *Driver) DiscardBlocks(ctx context.Context, name string) error {
	bb := d.c.NewBlockBlobClient(name)
	props, err := bb.GetProperties(ctx, nil)
	if bloberror.HasCode(err, bloberror.BlobNotFound) {
		// Whatever is staged, an empty commit drops it.
		resp, err := bb.CommitBlockList(ctx, nil, &blockblob.CommitBlockListOptions{
			AccessConditions: ifNoneMatch(azcore.ETagAny),
		})
		if err != nil {
			if bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet) {
				return nil // committed meanwhile: that commit dropped the blocks
			}
			return err
		}
		_, err = bb.Delete(ctx, &azblobpkg.DeleteOptions{AccessConditions: ifMatch(resp.ETag)})
		if err != nil && !bloberror.HasCode(err, bloberror.BlobNotFound, bloberror.ConditionNotMet) {
			return err
		}
		return nil
	}
	if err != nil {
		return err
	}
	list, err := bb.GetBlockList(ctx, blockblob.BlockListTypeAll, nil)
	if err != nil {
		if bloberror.HasCode(err, bloberror.BlobNotFound) {
			return nil // deleted meanwhile
		}
		return err
	}
	if len(list.UncommittedBlocks) == 0 || len(list.CommittedBlocks) == 0 {
		return nil
	}
	ids := make([]string, len(list.CommittedBlocks))
	for i, b := range list.CommittedBlocks {
		ids[i] = deref(b.Name)
	}
	_, err = bb.CommitBlockList(ctx, ids, &blockblob.CommitBlockListOptions{AccessConditions: ifMatch(props.ETag)})
	if err != nil && !bloberror.HasCode(err, bloberror.ConditionNotMet, bloberror.BlobNotFound) {
		return err
	}
	return nil
}

func ifMatch(etag *azcore.ETag) *azblobpkg.AccessConditions {
	return &azblobpkg.AccessConditions{ModifiedAccessConditions: &azblobpkg.ModifiedAccessConditions{IfMatch: etag}}
}

func ifNoneMatch(etag azcore.ETag) *azblobpkg.AccessConditions {
	return &azblobpkg.AccessConditions{ModifiedAccessConditions: &azblobpkg.ModifiedAccessConditions{IfNoneMatch: &etag}}
}

// NewRangeReader implements blob.Driver.
func (d *Driver) NewRangeReader(ctx context.Context, name string, offset, length int64) (io.ReadCloser, error) {
	resp, err := d.c.NewBlobClient(name).DownloadStream(ctx, &azblobpkg.DownloadStreamOptions{
		Range: azblobpkg.HTTPRange{Offset: offset, Count: length},
	})
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// Stat implements blob.Driver.
func (d *Driver) Stat(ctx context.Context, name string) (blob.Info, error) {
	props, err := d.c.NewBlobClient(name).GetProperties(ctx, nil)
	if err != nil {
		return blob.Info{}, err
	}
	return blob.Info{
		Name: name, Size: deref(props.ContentLength), ModTime: deref(props.LastModified),
		Tier:        strings.ToLower(deref(props.AccessTier)),
		Rehydrating: strings.HasPrefix(deref(props.ArchiveStatus), "rehydrate-pending"),
	}, nil
}

// SetTier implements blob.Driver. A rehydration from the archive tier
// has the standard priority (up to 15 hours, Azure says).
func (d *Driver) SetTier(ctx context.Context, name, tier string) error {
	opts := &azblobpkg.SetTierOptions{}
	if tier != blob.TierArchive {
		opts.RehydratePriority = to.Ptr(azblobpkg.RehydratePriorityStandard)
	}
	_, err := d.c.NewBlobClient(name).SetTier(ctx, azblobpkg.AccessTier(tierNames[tier]), opts)
	return err
}

// tierNames are Azure's names of the tiers.
var tierNames = map[string]string{blob.TierHot: "Hot", blob.TierCool: "Cool", blob.TierArchive: "Archive"}

// Delete implements blob.Driver.
func (d *Driver) Delete(ctx context.Context, name string) error {
	_, err := d.c.NewBlobClient(name).Delete(ctx, &azblobpkg.DeleteOptions{
		DeleteSnapshots: to.Ptr(azblobpkg.DeleteSnapshotsOptionTypeInclude),
	})
	return err
}

// List implements blob.Driver. Azure lists a container's blobs in name
// order; blobs with only uncommitted blocks are not listed.
func (d *Driver) List(ctx context.Context, prefix string) iter.Seq2[blob.Info, error] {
	return func(yield func(blob.Info, error) bool) {
		pager := d.c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &prefix})
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				yield(blob.Info{}, err)
				return
			}
			for _, item := range page.Segment.BlobItems {
				info := blob.Info{Name: deref(item.Name)}
				if p := item.Properties; p != nil {
					info.Size = deref(p.ContentLength)
					info.ModTime = deref(p.LastModified)
				}
				if !yield(info, nil) {
					return
				}
			}
		}
	}
}

// IsNotExist implements blob.Driver.
func (d *Driver) IsNotExist(err error) bool {
	return bloberror.HasCode(err, bloberror.BlobNotFound, bloberror.ContainerNotFound)
}

// Close implements blob.Driver; the SDK holds nothing to release.
func (d *Driver) Close() error { return nil }

// deref returns *p, or the zero value when p is nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
