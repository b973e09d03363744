package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
	"github.com/mnemo-console/mnemo/web/templates"
)

const csrfContextKey = "csrf"

// render writes comp with status through a buffer, so a failed render never
// sends half a page. For an htmx request that swaps part of a page the layout
// is left out.
func render(c echo.Context, status int, comp templ.Component) error {
	ctx := c.Request().Context()
	if isPartial(c) {
		ctx = templates.WithPartial(ctx)
	}
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := comp.Render(ctx, buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// meta builds the PageMeta of a full page: user, CSRF token, navigation and
// the flash messages (consumed only when a full page shows them).
func (s *Server) meta(c echo.Context, title, active string) (templates.PageMeta, error) {
	loc := locale.From(c.Request().Context())
	m := templates.PageMeta{
		Title:  loc.Phrase(title),
		User:   auth.UserFrom(c.Request().Context()),
		CSRF:   csrfToken(c),
		Active: active,
		Path:   c.Request().URL.RequestURI(),
	}
	if c.Request().Method == http.MethodPost {
		// A refused form comes back on the page it was sent from.
		m.Path, m.Resubmitted = formPage(c), true
	}
	m.Nav = navFor(m.User)
	s.withReviewBadge(c.Request().Context(), &m)
	if isPartial(c) {
		return m, nil
	}
	flashes, err := s.sessions.Flashes(c.Response(), c.Request())
	if err != nil {
		return m, err
	}
	for _, f := range flashes {
		if f.Kind == auth.FlashUndo {
			s.attachUndo(c, &m, f.Message)
			continue
		}
		m.Flashes = append(m.Flashes, templates.Flash{Kind: string(f.Kind), Message: loc.Phrase(f.Message)})
	}
	return m, nil
}

// attachUndo gives the last message of m the undo the flash value refs
// ("<rule id>:<audit id>", comma-separated for a bulk action) name, when
// the viewer may still take every one of them.
func (s *Server) attachUndo(c echo.Context, m *templates.PageMeta, value string) {
	refs, ok := parseUndoRefs(strings.Split(value, ","))
	if !ok || len(m.Flashes) == 0 || m.Flashes[len(m.Flashes)-1].Kind == string(auth.FlashError) {
		return
	}
	ctx := c.Request().Context()
	ids := make([]int64, len(refs))
	for i, r := range refs {
		ids[i] = r.RuleID
	}
	offers, err := s.app.Rules.UndoOffers(ctx, actorOf(ctx), ids)
	if err != nil || len(offers) != len(refs) {
		return
	}
	for i, u := range offers {
		if u.AuditID != refs[i].AuditID || u.Action != offers[0].Action {
			return
		}
	}
	offer := &templates.UndoOffer{RuleID: refs[0].RuleID, AuditID: refs[0].AuditID, Action: offers[0].Action, CSRF: m.CSRF, Back: m.Path}
	if len(refs) > 1 {
		offer.Many = refs
	}
	m.Flashes[len(m.Flashes)-1].Undo = offer
}

// parseUndoRefs reads "<rule id>:<audit id>" refs; ok is false for none,
// more than app.MaxUndoMany, or one that is not a pair of ids.
func parseUndoRefs(values []string) ([]templates.UndoRef, bool) {
	if len(values) == 0 || len(values) > app.MaxUndoMany {
		return nil, false
	}
	refs := make([]templates.UndoRef, len(values))
	for i, v := range values {
		a, b, found := strings.Cut(v, ":")
		r, err1 := strconv.ParseInt(a, 10, 64)
		id, err2 := strconv.ParseInt(b, 10, 64)
		if !found || err1 != nil || err2 != nil || r <= 0 || id <= 0 {
			return nil, false
		}
		refs[i] = templates.UndoRef{RuleID: r, AuditID: id}
	}
	return refs, true
}

func csrfToken(c echo.Context) string {
	t, _ := c.Get(csrfContextKey).(string)
	return t
}

// flash queues a message for the next page.
func (s *Server) flash(c echo.Context, kind auth.FlashKind, msg string) error {
	return s.sessions.AddFlash(c.Response(), c.Request(), auth.Flash{Kind: kind, Message: msg})
}

// pathParam returns a path parameter decoded; echo leaves parameters
// percent-encoded when the request path needed escaping.
func pathParam(c echo.Context, name string) (string, error) {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v, nil
	}
	u, err := url.PathUnescape(v)
	if err != nil {
		return "", governance.Errorf(governance.EINVALID, "Invalid %s in the address.", name)
	}
	return u, nil
}

// idParam reads a positive integer path parameter; anything else is an
// address that names no such object (404).
func idParam(c echo.Context, name, what string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, governance.Errorf(governance.ENOTFOUND, "No such %s.", what)
	}
	return id, nil
}

// pageParam reads ?page= (1-based); anything invalid means page 1.
func pageParam(c echo.Context) int {
	p, err := strconv.Atoi(c.QueryParam("page"))
	if err != nil || p < 1 {
		return 1
	}
	return p
}

// newPager describes page (1-based) of total items; link builds the URL of
// another page. Capped totals are lower bounds.
func newPager(page, size, total int, capped bool, target string, link func(page int) string) templates.Pager {
	pages := max(1, (total+size-1)/size)
	p := templates.Pager{Page: page, Pages: pages, Total: total, Capped: capped, Target: target}
	if page > 1 {
		p.Prev = link(min(page-1, pages))
	}
	if page < pages {
		p.Next = link(page + 1)
	}
	return p
}

// cappedPager is a pager over a total counted only up to countCap rows past
// the page (a filter's CountCap): when the cap is reached the total is a
// lower bound and the page count is unknown.
func cappedPager(page, size, total, countCap int, target string, link func(int) string) templates.Pager {
	p := newPager(page, size, total, countCap > 0 && total >= page*size+countCap, target, link)
	if p.Capped && p.Next == "" {
		p.Next = link(page + 1)
	}
	return p
}

// withPage returns base with the query values q and page set.
func withPage(base string, q url.Values, page int) string {
	v := url.Values{}
	for k, vals := range q {
		if k != "page" {
			v[k] = vals
		}
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return base
	}
	return base + "?" + v.Encode()
}

// backTo returns the validated local address a form returns to, or def.
func backTo(c echo.Context, def string) string {
	b := c.FormValue("back")
	if b == "" {
		return def
	}
	if next := safeNext(b); next != "/" || b == "/" {
		return next
	}
	return def
}

// formPage is the page a form was sent from: its "back" field, else the
// referring page of this console, else the console's start.
func formPage(c echo.Context) string {
	if b := c.FormValue("back"); b != "" {
		return safeNext(b)
	}
	if ref, err := url.Parse(c.Request().Referer()); err == nil && ref.Host == c.Request().Host {
		return safeNext(ref.RequestURI())
	}
	return "/"
}

// doneUndo is done for an action on rule id that its reviewer may undo:
// the message comes with an "Undo" button while the undo is allowed.
func (s *Server) doneUndo(c echo.Context, back, msg string, id int64) error {
	if err := s.flash(c, auth.FlashSuccess, msg); err != nil {
		return err
	}
	if err := s.offerUndo(c, []int64{id}); err != nil {
		return err
	}
	return redirect(c, back)
}

// doneUndoMany is doneUndo for a bulk action on rules ids: one "Undo"
// button reverts them all, offered only while every one may be undone
// (and for at most app.MaxUndoMany rules).
func (s *Server) doneUndoMany(c echo.Context, back, msg string, ids []int64) error {
	if err := s.flash(c, auth.FlashSuccess, msg); err != nil {
		return err
	}
	if len(ids) <= app.MaxUndoMany {
		if err := s.offerUndo(c, ids); err != nil {
			return err
		}
	}
	return redirect(c, back)
}

// offerUndo queues the undo of the last actions on rules ids for the next
// page's flash when the actor may take every one of them.
func (s *Server) offerUndo(c echo.Context, ids []int64) error {
	ctx := c.Request().Context()
	offers, err := s.app.Rules.UndoOffers(ctx, actorOf(ctx), ids)
	if err != nil || len(offers) != len(ids) {
		return nil // no undo to offer; the action itself succeeded
	}
	refs := make([]string, len(offers))
	for i, u := range offers {
		refs[i] = templates.UndoRef{RuleID: u.RuleID, AuditID: u.AuditID}.Value()
	}
	return s.flash(c, auth.FlashUndo, strings.Join(refs, ","))
}

// done flashes msg and sends the browser back.
func (s *Server) done(c echo.Context, back, msg string) error {
	if err := s.flash(c, auth.FlashSuccess, msg); err != nil {
		return err
	}
	return redirect(c, back)
}
