// Package live serves the console's live updates: streams of server-sent
// events, one per tab, that carry what happens in a tenant to the pages
// open on it, filtered for the person at the source.
package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kanri/kanri/internal/auth"
	"github.com/kanri/kanri/internal/events"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/support"
	"github.com/kanri/kanri/internal/telemetry"
	"github.com/kanri/kanri/internal/tenant"
	"github.com/kanri/kanri/internal/user"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/chatview"
	"github.com/kanri/kanri/web/httpkit"
)

// Timings of a tab's live stream.
const (
	// liveHeartbeat is how often an idle stream sends a comment, so that
	// proxies and the browser keep it open and a dead one is noticed.
	liveHeartbeat = 15 * time.Second
	// liveRecheck is how often a stream checks, untold, that its session
	// and the rights it serves still hold. It is a backstop: a change that
	// may take them away (a sign-out, a deactivation, a lost role, a
	// suspension) is audited, and the audit tells the tenant's streams on
	// every instance at once (events.AccessChanged), so they check then.
	liveRecheck = time.Minute
)

// Streams serve the live streams. Their fields are what the streams
// read: the session of a stream's tab, and what it is allowed.
type Streams struct {
	Sessions *httpkit.Sessions
	Users    *user.Service
	Auth     *auth.Service
	Tenants  *tenant.Service
	Roles    *role.Service
	// Support says whether the staff member behind a support session may
	// still hold it.
	Support   *support.Service
	Messaging *messaging.Service
	Files     *files.Service
	Events    events.Bus
	Logger    *slog.Logger
	Now       func() time.Time
	// Recheck is how often a stream checks its session and rights again
	// untold (liveRecheck when 0).
	Recheck time.Duration
	// Running counts the streams past their requests (none when nil).
	Running *Running
	// Metrics count the open streams and the events they deliver (none
	// when nil).
	Metrics  *telemetry.Metrics
	payloads payloadCache // the decoded payloads of the events
}

// Channels is a tab's stream of live updates (server-sent events), one
// per tab for every live part of the page. Every (re)connect starts with a
// snapshot (the unread counts of the person's channels and, for a channel's
// page, its latest messages), so that what the tab shows never depends on
// Last-Event-ID; when the browser sends one that is still kept, the events
// after it follow instead of the messages' snapshot. Events are filtered
// for the person at the source: nothing of a channel they cannot read, and
// nothing of another tenant, is ever sent.
func (s *Streams) Channels(c echo.Context) error {
	ctx := c.Request().Context()
	t, me := httpkit.Tenant(c), chatview.Person(c)
	l := &liveStream{s: s, tenantID: t.ID, me: me, list: c.QueryParam("list") == "1"}
	l.locale = i18n.Lang(ctx) + "|" + views.ZoneOf(ctx).String() + "|"
	if id := c.QueryParam("channel"); id != "" {
		ch, m, err := s.Messaging.Channel(ctx, t.ID, me.UserID, id)
		if err != nil {
			return err // another tenant's channel, or a private one: 404
		}
		l.open, l.openMember = ch, m
	}
	if !httpkit.Can(c, role.ChannelsRead) {
		return kanri.E(kanri.EFORBIDDEN, "error.forbidden_body")
	}
	// Subscribe first, then read the snapshot: an event published between
	// the two is in the snapshot and delivered too, never lost.
	last := c.Request().Header.Get("Last-Event-ID")
	sub, err := s.Subscribe(ctx, t.ID, last)
	resumed := err == nil && last != ""
	if errors.Is(err, events.ErrGap) || errors.Is(err, events.ErrPosition) {
		sub, err = s.Subscribe(ctx, t.ID, "")
	}
	if err != nil {
		return err
	}
	handed := false // to the stream's run, which closes it
	defer func() {
		if !handed {
			sub.Close()
		}
	}()

	l.out = Start(c)
	// A resume that failed leaves the tab's messages unknown (edits and
	// deletions since do not change the latest number): they come whole.
	if err := l.snapshot(ctx, c, !resumed, last != "" && !resumed); err != nil {
		return l.end(err)
	}
	if l.open != nil {
		// The stream keeps the open channel as long as the tab stays, for
		// its id and state; the window of its latest messages (up to 200
		// entries, about 12 KB decoded) served the snapshot alone.
		l.open.Recent = nil
	}
	v := s.Viewer(c)
	handed = true
	s.Run(ctx, l.out, func(ctx context.Context) {
		defer sub.Close()
		if err := s.Pump(ctx, v, t, role.ChannelsRead, sub, l.out.WriteString, func(e *events.Event) error { return l.deliver(ctx, e) }); err != nil {
			_ = l.end(err)
		}
	})
	return nil
}

// Run runs the rest of a stream written to o. When the stream has its
// connection, run goes on a goroutine of its own, counted in s.Running,
// with ctx's values but not its end (the request is over): its context
// ends when the browser closes the connection, a panic is logged (the
// request's recovery is gone), and the connection is closed when run
// returns. Otherwise run runs in the request, with ctx; for a HEAD
// request, with a context already ended.
func (s *Streams) Run(ctx context.Context, o *Out, run func(ctx context.Context)) {
	if o.conn == nil {
		if o.head {
			done, cancel := context.WithCancel(ctx)
			cancel()
			ctx = done
		}
		run(ctx)
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		// The browser sends nothing more: a read ends when it goes (or
		// when run closes the connection).
		var b [1]byte
		_, _ = o.conn.Read(b[:])
		cancel()
	}()
	if s.Running != nil {
		s.Running.wg.Add(1)
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				s.logger().Error("live stream panicked", "panic", r, "stack", string(debug.Stack()))
			}
			o.conn.Close()
			cancel()
			if s.Running != nil {
				s.Running.wg.Done()
			}
		}()
		run(ctx)
	}()
}

// logger is the streams' logger, or the default one.
func (s *Streams) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Subscribe subscribes a stream to the tenant's events after the
// position after (events.Bus). The stream outlives its request (Out), so
// the subscription ends with its Close rather than with the request; but
// a request that ends while subscribing (on Cosmos DB, the change feed is
// read to its end first) still stops it.
func (s *Streams) Subscribe(ctx context.Context, tenantID, after string) (*events.Subscription, error) {
	subCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	sub, err := s.Events.Subscribe(subCtx, tenantID, after)
	if !stop() { // the request ended meanwhile: so does the subscription
		if sub != nil {
			sub.Close()
		}
		return nil, ctx.Err()
	}
	return sub, err
}

// Viewer is who a stream serves, as its request said: a stream outlives
// its request (Out), and checks them again later.
type Viewer struct {
	// UserID is the signed-in user, HomeID their tenant.
	UserID, HomeID string
	Cookie         httpkit.SessionCookie
	// SupportUntil, for a support session, is when it ends (zero for the
	// user's own session), and Staff the staff member's own session set
	// aside.
	SupportUntil time.Time
	Staff        httpkit.SessionCookie
}

// Viewer returns who the request's stream serves.
func (s *Streams) Viewer(c echo.Context) Viewer {
	v := Viewer{
		UserID: c.Get(httpkit.KeyUser).(*kanri.User).ID,
		HomeID: c.Get(httpkit.KeyHome).(*kanri.Tenant).ID,
		Cookie: s.Sessions.Cookie(c),
	}
	if sup, ok := c.Get(httpkit.KeySupport).(*kanri.SessionSupport); ok {
		v.SupportUntil, v.Staff = sup.ExpiresAt.Time, s.Sessions.StaffCookie(c)
	}
	return v
}

// Pump runs a stream until the browser goes, the bus closes the
// subscription (at shutdown, or when the tab fell behind: the browser
// reconnects), a write fails or deliver fails, whose error it returns. It
// passes each event to deliver and pings every liveHeartbeat. It checks
// that the session holds and its user still has perm in the tenant when an
// access event concerns the user (of the tenant, or of the user's own
// tenant when they are an operator elsewhere), when the session's cookie
// expires, and, untold, every Recheck; when they no longer hold, it ends
// the stream with an end event.
func (s *Streams) Pump(ctx context.Context, v Viewer, t *kanri.Tenant, perm string, sub *events.Subscription, write func(string) error, deliver func(*events.Event) error) error {
	me := v.UserID
	s.Metrics.StreamOpened()
	defer s.Metrics.StreamClosed()
	var homeEvents <-chan *events.Event
	if v.HomeID != t.ID {
		hs, err := s.Events.Subscribe(ctx, v.HomeID, "")
		if err != nil {
			return err
		}
		defer hs.Close()
		homeEvents = hs.C
	}
	every := s.Recheck
	if every <= 0 {
		every = liveRecheck
	}
	// The first check untold comes at a random point of the first period:
	// the streams of a page opened by many at once do not check together.
	heartbeat, recheck, expiry := time.NewTicker(liveHeartbeat), time.NewTimer(every/2+rand.N(every)), time.NewTimer(s.untilExpiry(v))
	defer heartbeat.Stop()
	defer recheck.Stop()
	defer expiry.Stop()
	allowed := func() bool {
		if s.stillAllowed(ctx, v, t, perm) {
			return true
		}
		_ = write("event: end\ndata: \n\n")
		return false
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-sub.C:
			if !ok {
				if errors.Is(sub.Err(), events.ErrTooSlow) {
					s.Metrics.StreamBehind() // the browser reconnects, and gets a snapshot
				}
				return nil
			}
			if access, concerns := e.Access(me); access {
				if concerns && !allowed() {
					return nil
				}
				continue
			}
			if err := deliver(e); err != nil {
				return err
			}
			s.Metrics.EventDelivered()
		case e, ok := <-homeEvents:
			if !ok {
				return nil
			}
			if _, concerns := e.Access(me); concerns && !allowed() {
				return nil
			}
		case <-heartbeat.C:
			if err := write(": ping\n\n"); err != nil {
				return nil
			}
		case <-recheck.C:
			if !allowed() {
				return nil
			}
			recheck.Reset(every)
		case <-expiry.C:
			if !allowed() {
				return nil
			}
			expiry.Reset(s.untilExpiry(v))
		}
	}
}

// untilExpiry is how long until the stream's session cookie expires (and
// a second more, so that the check then finds it expired).
func (s *Streams) untilExpiry(v Viewer) time.Duration {
	end := v.Cookie.Expiry()
	if !v.SupportUntil.IsZero() && v.SupportUntil.Before(end) {
		end = v.SupportUntil // a support session ends sooner
	}
	return max(end.Sub(s.Now())+time.Second, time.Second)
}

// stillAllowed reports whether the stream's session still holds and its
// user still has perm in the tenant.
func (s *Streams) stillAllowed(ctx context.Context, v Viewer, t *kanri.Tenant, perm string) bool {
	u, err := s.Users.Get(ctx, v.HomeID, v.UserID)
	if !s.Sessions.Live(v.Cookie) || err != nil || !u.IsActive || !u.DeletedAt.IsZero() || v.Cookie.Issued.Before(u.Security.SessionsValidAfter.Truncate(time.Millisecond)) {
		return false
	}
	rec, err := s.Auth.Session(ctx, u.TenantID, u.ID, v.Cookie.Token)
	if err != nil {
		return false // ended from the account page or by an administrator
	}
	home, err := s.Tenants.Get(ctx, u.TenantID)
	if err != nil || !home.OpenAt(s.Now()) {
		return false
	}
	if sup := rec.Support; sup != nil {
		if !s.Now().Before(sup.ExpiresAt.Time) || !home.SupportAllowed() || home.SupportNeedsApproval() && sup.RequestID == "" {
			return false // a support session past its time, or no longer allowed
		}
		if may, err := s.Support.StaffMay(ctx, sup, v.Staff.Token, v.Staff.Issued); err != nil || !may {
			return false // its staff member lost the right
		}
	}
	access, err := s.Roles.AccessOf(ctx, home.ID, u.ID)
	if err != nil || !access.Perms.Has(perm) || (home.ID != t.ID && !access.GlobalAdmin) {
		return false
	}
	return true
}

// liveStream is one tab's stream.
type liveStream struct {
	s        *Streams
	out      *Out
	tenantID string
	me       messaging.Person
	// list says the tab shows the list of channels, with their unread
	// counts.
	list       bool
	open       *kanri.Channel
	openMember *kanri.ChannelMember
	// snapSeq is the number of the open channel's latest message in the
	// snapshot: created events up to it are already shown.
	snapSeq int64
	// unread follows the person's unread messages and mentions (for the
	// navigation's count and the list's) and which channels' events they
	// may receive.
	unread *messaging.Tracker
	// locale is what of the stream's context its updates are rendered in:
	// its language and time zone, a part of every rendering's audience.
	locale string
}

// end reports an error to the log and ends the stream (the browser
// reconnects and starts from a snapshot).
func (l *liveStream) end(err error) error {
	if !errors.Is(err, context.Canceled) {
		l.s.Logger.Warn("live stream ended", "tenant", l.tenantID, "err", err)
	}
	return nil
}

// send sends one update rendered for this stream alone: HTML of
// out-of-band swaps, with the event's position as its id when it has one.
func (l *liveStream) send(ctx context.Context, id string, comps ...templ.Component) error {
	pieces := make([][]byte, len(comps))
	for i, comp := range comps {
		b, err := dataLines(ctx, comp)
		if err != nil {
			return err
		}
		pieces[i] = b
	}
	return l.sendPieces(id, pieces)
}

// snapshot sends the unread counts of the person's channels and, with
// messages, the open channel's latest messages: when the page's latest
// message (its seq) is not the channel's, or whole when told.
func (l *liveStream) snapshot(ctx context.Context, c echo.Context, messages, whole bool) error {
	tr, err := l.s.Messaging.Track(ctx, l.tenantID, l.me)
	if err != nil {
		return err
	}
	l.unread = tr
	comps := []templ.Component{views.NavUnreadUpdate(chatview.NavUnread(tr.Total()))}
	if l.list {
		for _, id := range tr.IDs() {
			comps = append(comps, chatview.UnreadUpdate(id, tr.Channel(id)))
		}
	}
	if l.open != nil && messages {
		ch, m, err := l.s.Messaging.Channel(ctx, l.tenantID, l.me.UserID, l.open.ID)
		if err != nil {
			return err
		}
		l.open, l.openMember, l.snapSeq = ch, m, ch.LastSeq
		if shown, err := strconv.ParseInt(c.QueryParam("seq"), 10, 64); whole || err != nil || shown != ch.LastSeq {
			// The page may miss messages: it gets the latest ones whole.
			ms, older, err := l.s.messages().Page(c, ch, m, "", "", l.s.Sessions.CSRFToken(c))
			if err != nil {
				return err
			}
			v := views.ChannelView{Channel: ch, Member: m, Messages: ms, OlderURL: older}
			v.FirstUnread = chatview.FirstUnread(ms, m, l.me.UserID)
			comps = append(comps, views.MessageListUpdate(v))
		}
	}
	return l.send(ctx, "", comps...)
}

// update is one update of a tab being put together: the pieces of
// out-of-band HTML it carries, each already in its data lines.
type update struct {
	l      *liveStream
	ctx    context.Context
	d      *decodedPayload
	pieces [][]byte
	err    error
}

// add adds the piece that comp renders, which is the same for every
// stream whose audience is key (the stream's locale is added to it):
// rendered once for all of them.
func (u *update) add(key string, comp func() templ.Component) {
	if u.err != nil {
		return
	}
	b, err := u.d.piece(u.l.locale+key, func() ([]byte, error) { return dataLines(u.ctx, comp()) })
	u.pieces, u.err = append(u.pieces, b), err
}

// unread adds the updates of what the person has not read: the
// navigation's total and, when the tab shows the list of channels, the
// channel's counts.
func (u *update) unread(channelID string) {
	t := u.l.unread.Total()
	u.add(fmt.Sprintf("nav|%d|%s|%d", t.Unread, t.Label(), t.Mentions), func() templ.Component {
		return views.NavUnreadUpdate(chatview.NavUnread(t))
	})
	if c := u.l.unread.Channel(channelID); c != nil && u.l.list {
		u.add(fmt.Sprintf("list|%s|%s|%s|%d", channelID, c.Name, c.Label(), len(c.Mentions)), func() templ.Component {
			return chatview.UnreadUpdate(channelID, c)
		})
	}
}

// message adds v, as comp renders it.
func (u *update) message(kind string, v views.MessageView, comp func(views.MessageView) templ.Component) {
	u.add(kind+"|"+v.Audience(u.d.mentioned), func() templ.Component { return comp(v) })
}

// deliver sends what an event changes on the tab, if the person may see
// it. What it sends is rendered once for each audience of the event (the
// same language, time zone and rights over the message), not once for
// each stream: with 1,000 tabs open on a channel, rendering in every
// stream was most of a message's fan-out.
func (l *liveStream) deliver(ctx context.Context, e *events.Event) error {
	if !strings.HasPrefix(e.Topic, "channel:") {
		return nil
	}
	d, err := l.s.payloads.get(e)
	if err != nil {
		return nil // not for this stream
	}
	p := &d.p
	u := &update{l: l, ctx: ctx, d: d}
	if l.unread.Apply(e.Kind, p) {
		u.unread(p.ChannelID)
	}
	ok, err := l.unread.Sees(ctx, p.ChannelID, p.Private)
	if err != nil {
		return err
	}
	// Every update below is of the open channel's page.
	open := ok && l.open != nil && l.open.ID == p.ChannelID
	switch e.Kind {
	case messaging.KindMessageCreated:
		if open && p.Message != nil && p.Message.Seq > l.snapSeq {
			v := l.view(ctx, e, p.Message)
			v.MarkRead = l.openMember != nil && p.Message.Seq > l.openMember.ReadSeq
			u.message("new", v, views.NewMessage)
		}
	case messaging.KindMessageUpdated, messaging.KindReaction:
		if open && p.Message != nil {
			u.message("replaced", l.view(ctx, e, p.Message), views.ReplacedMessage)
		}
	case messaging.KindMessageDeleted:
		if open && p.Message != nil {
			id := p.Message.ID
			u.add("removed", func() templ.Component { return views.RemovedMessage(id) })
		}
	case messaging.KindMemberRead:
		if open && p.UserID == l.me.UserID && l.openMember != nil {
			l.openMember.ReadSeq = max(l.openMember.ReadSeq, p.ReadSeq)
		}
	case messaging.KindMemberJoined, messaging.KindMemberLeft, messaging.KindChannelUpdated, messaging.KindChannelDeleted:
		switch {
		case open && (p.UserID == l.me.UserID || e.Kind == messaging.KindChannelDeleted):
			u.add("changed", views.ChannelChanged)
		case open && p.MemberCount > 0:
			n := p.MemberCount // someone else joined or left
			u.add("members|"+strconv.Itoa(n), func() templ.Component { return views.MemberCount(n, true) })
		}
	}
	if u.err != nil {
		return u.err
	}
	if len(u.pieces) == 0 {
		return nil
	}
	return l.sendPieces(e.Pos, u.pieces)
}

// view is a message of the open channel as the person sees it, with no
// CSRF token: a view rendered for everyone alike (htmx sends the page's).
func (l *liveStream) view(ctx context.Context, e *events.Event, m *kanri.Message) views.MessageView {
	atts := l.s.payloads.attachments(e, func() []views.Attachment { return l.s.messages().Attachments(ctx, l.tenantID, m) })
	return chatview.ViewWith(l.tenantID, l.me, l.open, l.openMember, m, "", atts)
}

// frames are the buffers updates are put together in before their one
// write.
var frames = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// sendPieces sends one update made of pieces (data lines), with id as its
// id when it has one, in one write.
func (l *liveStream) sendPieces(id string, pieces [][]byte) error {
	buf := frames.Get().(*bytes.Buffer)
	defer frames.Put(buf)
	buf.Reset()
	if id != "" {
		buf.WriteString("id: " + id + "\n")
	}
	buf.WriteString("event: update\n")
	for _, p := range pieces {
		buf.Write(p)
	}
	buf.WriteByte('\n')
	return l.out.Write(buf.Bytes())
}

// dataLines renders comp as the data lines of a server-sent event.
func dataLines(ctx context.Context, comp templ.Component) ([]byte, error) {
	var html bytes.Buffer
	if err := comp.Render(ctx, &html); err != nil {
		return nil, err
	}
	out := make([]byte, 0, html.Len()+64)
	for line := range strings.SplitSeq(html.String(), "\n") {
		out = append(out, "data: "...)
		out = append(out, line...)
		out = append(out, '\n')
	}
	return out, nil
}

// messages reads messages for their views.
func (s *Streams) messages() chatview.Messages {
	return chatview.Messages{Messaging: s.Messaging, Files: s.Files}
}

// payloadCacheSize is how many events' decoded payloads are kept: more
// than a stream may fall behind (the in-process bus cuts a subscriber off
// 256 events behind), so that every stream of an event finds it decoded.
// The rendered pieces of only the last piecesKept events are kept (a
// stream further behind renders its own), at most maxPieces of each.
const (
	payloadCacheSize = 1024
	piecesKept       = 16
	maxPieces        = 64
)

// payloadCache decodes each event's payload once for all the streams that
// deliver it, rather than once per stream: with 1,000 tabs open on a
// channel, decoding in every stream was a fifth of the CPU time of a
// message's fan-out; and it keeps what the streams render of the event,
// once per audience. The payloads it returns are shared: read only (the
// message's version is set once, when the payload is decoded).
type payloadCache struct {
	mu    sync.Mutex
	byID  map[string]*decodedPayload
	order []string // the ids in byID, oldest first
}

type decodedPayload struct {
	once sync.Once
	p    messaging.Payload
	err  error
	// mentioned are the usernames the message mentions.
	mentioned []string
	// atts are the files its message links to, read once for every
	// stream (with 1,000 tabs open, one read per stream and attachment was
	// 1,000 store reads a message).
	attsOnce sync.Once
	atts     []views.Attachment

	mu     sync.Mutex
	pieces map[string]*renderedPiece // nil once the event is no longer among the last piecesKept
	cold   bool
}

type renderedPiece struct {
	once sync.Once
	b    []byte
	err  error
}

// piece returns the piece of the audience key, rendered by render the
// first time any stream asks.
func (d *decodedPayload) piece(key string, render func() ([]byte, error)) ([]byte, error) {
	d.mu.Lock()
	r := d.pieces[key]
	if r == nil {
		if d.cold || len(d.pieces) >= maxPieces {
			d.mu.Unlock()
			return render()
		}
		if d.pieces == nil {
			d.pieces = map[string]*renderedPiece{}
		}
		r = &renderedPiece{}
		d.pieces[key] = r
	}
	d.mu.Unlock()
	r.once.Do(func() { r.b, r.err = render() })
	return r.b, r.err
}

// attachments returns the attachments of e's message, read by read the
// first time any stream asks.
func (c *payloadCache) attachments(e *events.Event, read func() []views.Attachment) []views.Attachment {
	c.mu.Lock()
	d := c.byID[e.ID]
	c.mu.Unlock()
	if d == nil || e.ID == "" {
		return read()
	}
	d.attsOnce.Do(func() { d.atts = read() })
	return d.atts
}

// get returns the decoded payload of e.
func (c *payloadCache) get(e *events.Event) (*decodedPayload, error) {
	if e.ID == "" {
		d := &decodedPayload{cold: true}
		d.err = d.decode(e.Data)
		return d, d.err
	}
	c.mu.Lock()
	d := c.byID[e.ID]
	if d == nil {
		if c.byID == nil {
			c.byID = map[string]*decodedPayload{}
		}
		d = &decodedPayload{}
		c.byID[e.ID] = d
		c.order = append(c.order, e.ID)
		if len(c.order) > payloadCacheSize {
			delete(c.byID, c.order[0])
			c.order = c.order[1:]
		}
		if n := len(c.order); n > piecesKept {
			c.byID[c.order[n-piecesKept-1]].chill()
		}
	}
	c.mu.Unlock()
	d.once.Do(func() { d.err = d.decode(e.Data) })
	return d, d.err
}

// chill lets the pieces of an event older than the last piecesKept go.
func (d *decodedPayload) chill() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pieces, d.cold = nil, true
}

// decode decodes an event's payload, the message with its version.
func (d *decodedPayload) decode(data []byte) error {
	if err := json.Unmarshal(data, &d.p); err != nil {
		return err
	}
	if d.p.Message != nil {
		d.p.Message.ETag = d.p.MessageETag
		d.mentioned = views.MentionNames(d.p.Message.Content)
	}
	d.p.Prepare()
	return nil
}
