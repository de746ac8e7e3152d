package messaging

import (
	"context"
	"time"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// Run finishes, until ctx ends, the deletions of channels that a crash
// interrupted: at start and every hour. It runs on every instance; two
// instances removing the same documents only find some already gone.
func (s *Service) Run(ctx context.Context) error {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if err := s.FinishDeletions(ctx); err != nil && ctx.Err() == nil {
			s.Logger.Error("messaging: finishing channel deletions", "err", err)
		}
		select {
		case <-ctx.Done():
			s.cleanups.Wait()
			return nil
		case <-t.C:
		}
	}
}

// FinishDeletions removes what is left of every deleted channel.
func (s *Service) FinishDeletions(ctx context.Context) error {
	next := ""
	for {
		ds, n, err := s.Store.Privileged().ChannelDeletions(ctx, next)
		if err != nil {
			return err
		}
		for _, d := range ds {
			if err := s.cleanup(ctx, d.TenantID, d.ChannelID); err != nil {
				return err
			}
		}
		if next = n; next == "" {
			return nil
		}
	}
}

// Wait waits for the removals of deleted channels under way.
func (s *Service) Wait() { s.cleanups.Wait() }

// cleanup removes a deleted channel's messages, reactions and
// memberships, a page at a time, then the mark of its deletion.
func (s *Service) cleanup(ctx context.Context, tenantID, channelID string) error {
	ten := s.Store.Tenant(tenantID)
	byChannel := []docstore.Filter{docstore.Eq("channelId", channelID)}
	steps := []func() (int, error){
		func() (int, error) {
			ms, _, err := ten.Messages().Query(ctx, docstore.Query{Where: byChannel, OrderBy: "seq", Limit: 100})
			if err != nil {
				return 0, err
			}
			return len(ms), deleteAll(ctx, ms, ten.Messages().Delete)
		},
		func() (int, error) {
			rs, _, err := ten.Reactions().Query(ctx, docstore.Query{Where: byChannel, OrderBy: "messageSentAt", Limit: 100})
			if err != nil {
				return 0, err
			}
			return len(rs), deleteAll(ctx, rs, ten.Reactions().Delete)
		},
		func() (int, error) {
			ms, _, err := ten.ChannelMembers().Query(ctx, docstore.Query{Where: byChannel, OrderBy: "userId", Limit: 100})
			if err != nil {
				return 0, err
			}
			return len(ms), deleteAll(ctx, ms, ten.ChannelMembers().Delete)
		},
	}
	for _, step := range steps {
		for {
			n, err := step()
			if err != nil {
				return err
			}
			if n == 0 {
				break
			}
		}
	}
	err := ten.ChannelDeletions().Delete(ctx, "channeldeletion_"+channelID, "")
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	}
	return err
}

// deleteAll deletes docs, those already gone included.
func deleteAll[D kanri.Document](ctx context.Context, docs []D, del func(ctx context.Context, id, etag string) error) error {
	for _, d := range docs {
		if err := del(ctx, d.Base().ID, ""); err != nil && !kanri.IsCode(err, kanri.ENOTFOUND) {
			return err
		}
	}
	return nil
}
