package web

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"

	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/transcript"
)

// Limits of the agent API, per request.
const (
	// APIMaxEventsBytes bounds the body of POST /api/v1/events.
	APIMaxEventsBytes = 8 << 20
	// APIMaxEvents bounds the number of events in one POST /api/v1/events.
	APIMaxEvents = app.MaxIngestEvents
	// APIMaxBodyBytes bounds every other JSON body.
	APIMaxBodyBytes = 64 << 10
	// APIMaxRules bounds one page of GET /api/v1/rules.
	APIMaxRules = app.MaxProjectRules
)

// The agent API's error codes beyond governance's.
const (
	codeUnsupportedMedia = "unsupported_media_type"
)

//go:embed openapi.json
var openAPIDocument []byte

// tokenKey is the context key of the API token of a request.
type tokenKey struct{}

func withToken(ctx context.Context, t *governance.APIToken) context.Context {
	return context.WithValue(ctx, tokenKey{}, t)
}

// tokenFrom returns the request's verified API token (nil outside the API).
func tokenFrom(ctx context.Context) *governance.APIToken {
	t, _ := ctx.Value(tokenKey{}).(*governance.APIToken)
	return t
}

// apiError is the JSON body of every API error.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Items lists the first governance.MaxReportedErrors invalid events of
	// a rejected batch (1-based item or line numbers); Invalid counts them all.
	Items   []governance.LineError `json:"items,omitempty"`
	Invalid int                    `json:"invalid,omitempty"`
}

// apiErrors renders every error of an API route as JSON {code, message}
// with the matching status, and logs internal errors with the request id.
func (s *Server) apiErrors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		if err == nil || c.Response().Committed {
			return err
		}
		if clientGone(c, err) {
			s.abandon(c, err)
			return nil
		}
		body := apiError{Code: governance.ErrorCode(err), Message: governance.ErrorMessage(err)}
		status := statusOf(body.Code)
		var (
			ie  *governance.ImportError
			mbe *http.MaxBytesError
			he  *echo.HTTPError
		)
		switch {
		case errors.As(err, &ie):
			status, body = http.StatusBadRequest, apiError{Code: governance.EINVALID, Items: ie.Lines, Invalid: ie.Count(),
				Message: fmt.Sprintf("%d invalid event(s); nothing was written.", ie.Count())}
			if more := ie.Count() - len(ie.Lines); more > 0 {
				body.Message = fmt.Sprintf("%d invalid event(s); the first %d are listed; nothing was written.", ie.Count(), len(ie.Lines))
			}
		case errors.As(err, &mbe):
			status, body = http.StatusRequestEntityTooLarge, apiError{Code: governance.ETOOLARGE,
				Message: fmt.Sprintf("The request body is larger than %d bytes.", mbe.Limit)}
		case errors.As(err, &he) && he.Code < 500:
			status, body = he.Code, apiError{Code: strings.ToLower(strings.ReplaceAll(http.StatusText(he.Code), " ", "_")),
				Message: http.StatusText(he.Code) + "."}
		}
		requestID := c.Response().Header().Get(echo.HeaderXRequestID)
		if status >= 500 {
			s.logger.LogAttrs(c.Request().Context(), slog.LevelError, "api request failed",
				slog.String("request_id", requestID), slog.Any("error", err))
		}
		if status == http.StatusUnauthorized {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="mnemo"`)
		}
		return c.JSON(status, body)
	}
}

// bearerToken returns the secret of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, secret, ok := strings.Cut(r.Header.Get(echo.HeaderAuthorization), " ")
	secret = strings.TrimSpace(secret)
	return secret, ok && strings.EqualFold(scheme, "bearer") && secret != ""
}

// verifyToken finds the live token whose secret the request carries and
// records its use (a failure to record it does not fail the request).
func (s *Server) verifyToken(ctx context.Context, secret string) (*governance.APIToken, error) {
	t, err := s.app.Tokens.Verify(ctx, secret)
	if err != nil {
		return nil, err
	}
	if err := s.app.Tokens.Touch(ctx, t); err != nil {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "token use not recorded", slog.Int64("token_id", t.ID), slog.Any("error", err))
	}
	return t, nil
}

// requireToken authenticates a project API token (never the session
// cookie) and asks the policy whether it may do action in its project.
func (s *Server) requireToken(action governance.Action) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			secret, ok := bearerToken(c.Request())
			if !ok {
				return governance.Errorf(governance.EUNAUTHORIZED, "Send a project API token: Authorization: Bearer <token>.")
			}
			t, err := s.verifyToken(c.Request().Context(), secret)
			if err != nil {
				return err
			}
			if err := governance.Can(governance.TokenActor(t), action, governance.Object{ProjectID: t.ProjectID}); err != nil {
				return err
			}
			c.SetRequest(c.Request().WithContext(withToken(c.Request().Context(), t)))
			return next(c)
		}
	}
}

// capBody caps the request body; reading past it fails with a *http.MaxBytesError.
func capBody(c echo.Context, n int64) {
	r := c.Request()
	r.Body = http.MaxBytesReader(c.Response(), r.Body, n)
}

// decodeJSON reads one JSON object from the body, rejecting unknown fields
// and invalid UTF-8 (which encoding/json would silently replace).
func decodeJSON(c echo.Context, limit int64, v any) error {
	capBody(c, limit)
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err
	}
	if !utf8.Valid(body) {
		return governance.Errorf(governance.EINVALID, "The request body is not valid UTF-8.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		if errors.Is(err, io.EOF) {
			return governance.Errorf(governance.EINVALID, "The request body is empty.")
		}
		return governance.Errorf(governance.EINVALID, "Invalid JSON: %s.", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return governance.Errorf(governance.EINVALID, "The request body holds more than one JSON value.")
	}
	return nil
}

// decodeOptionalJSON is decodeJSON for a body that may be absent or empty.
func decodeOptionalJSON(c echo.Context, limit int64, v any) error {
	capBody(c, limit)
	b, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	c.Request().Body = io.NopCloser(bytes.NewReader(b))
	return decodeJSON(c, limit, v)
}

// handleOpenAPI serves the API's OpenAPI 3.1 document.
func (s *Server) handleOpenAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDocument)
}

// handleAPINotFound answers unknown API addresses in the API's error format.
func (s *Server) handleAPINotFound(c echo.Context) error {
	return governance.Errorf(governance.ENOTFOUND, "There is no API endpoint at %s %s.", c.Request().Method, c.Request().URL.Path)
}

// handleAPIEventsCreate ingests a batch: a JSON array (application/json) or
// JSON Lines (application/x-ndjson, application/jsonl). The batch is
// validated whole; any invalid item rejects it with every problem named by
// item (array) or line (NDJSON) number, and nothing is written. Events
// whose id the project already has are skipped and reported.
func (s *Server) handleAPIEventsCreate(c echo.Context) error {
	t := tokenFrom(c.Request().Context())
	capBody(c, s.cfg.MaxEventsBytes)
	if c.QueryParam("format") != "" {
		return s.handleAPITranscriptCreate(c, t)
	}
	mt, _, _ := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	var (
		events []*governance.Event
		err    error
	)
	switch mt {
	case echo.MIMEApplicationJSON:
		events, err = parseEventArray(c.Request().Body)
	case "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines", "application/jsonlines":
		events, err = governance.ParseEventsJSONLLimit(c.Request().Body, s.cfg.MaxLineBytes)
	default:
		return governance.Errorf(codeUnsupportedMedia, "Send events as application/json (an array) or application/x-ndjson (one event per line).")
	}
	if err != nil {
		var (
			ie  *governance.ImportError
			mbe *http.MaxBytesError
			ge  *governance.Error
		)
		if errors.As(err, &ie) || errors.As(err, &mbe) || errors.As(err, &ge) {
			return err
		}
		return governance.Errorf(governance.EINVALID, "The request body could not be read.")
	}
	res, err := s.app.Events.Ingest(c.Request().Context(), actorOf(c.Request().Context()), t.ProjectID, events)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// handleAPITranscriptCreate imports an agent's session file sent as the
// body (?format=auto|claude-code|codex|hermes|openai|seed|mnemo), streamed
// in one transaction: a malformed line rejects the whole body unless
// ?skip_malformed=true, in which case bad lines are skipped and listed.
// A seed file's project_id must be the token's project.
func (s *Server) handleAPITranscriptCreate(c echo.Context, t *governance.APIToken) error {
	format, err := transcript.ParseFormat(c.QueryParam("format"))
	if err != nil {
		return err
	}
	skip, _ := strconv.ParseBool(c.QueryParam("skip_malformed"))
	opts := transcript.Options{Format: format, Name: c.QueryParam("name"), Subject: c.QueryParam("subject_id"), SkipMalformed: skip}
	if opts.Name == "" {
		opts.Name = "api"
	}
	ctx := c.Request().Context()
	res, err := s.app.Imports.Transcript(ctx, actorOf(ctx), t.ProjectID, c.Request().Body, opts)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return governance.Errorf(governance.ETOOLARGE, "The body is larger than %d bytes.", mbe.Limit)
		}
		return err
	}
	if res.SkippedIDs == nil {
		res.SkippedIDs = []string{}
	}
	return c.JSON(http.StatusOK, res)
}

// parseEventArray decodes a JSON array of events strictly, in one pass,
// naming every undecodable item by its 1-based number (a syntax error ends
// the scan). Validation, with the same item numbers, is IngestEvents's.
// Nothing is returned when any item is bad.
func parseEventArray(r io.Reader) ([]*governance.Event, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	notArray := func(err error) error {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		msg := "The body must be a JSON array of events."
		if err != nil {
			msg = fmt.Sprintf("The body must be a JSON array of events: %s.", strings.TrimPrefix(err.Error(), "json: "))
		}
		return governance.Errorf(governance.EINVALID, "%s", msg)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, notArray(err)
	}
	var (
		events []*governance.Event
		bad    governance.LineErrors
	)
	for i := 1; dec.More(); i++ {
		if i > APIMaxEvents {
			return nil, governance.Errorf(governance.ETOOLARGE, "At most %d events per request.", APIMaxEvents)
		}
		// Each item is first taken raw: encoding/json would silently turn
		// invalid UTF-8 into U+FFFD (two different ids could collide).
		var raw json.RawMessage
		err := dec.Decode(&raw)
		var e *governance.Event
		if err == nil {
			if !utf8.Valid(raw) {
				bad.Add(i, "item is not valid UTF-8")
				continue
			}
			itemDec := json.NewDecoder(bytes.NewReader(raw))
			itemDec.DisallowUnknownFields()
			err = itemDec.Decode(&e)
		}
		if err != nil {
			var (
				mbe *http.MaxBytesError
				se  *json.SyntaxError
			)
			if errors.As(err, &mbe) {
				return nil, err
			}
			bad.Add(i, "invalid JSON: "+strings.TrimPrefix(err.Error(), "json: "))
			if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, bad.Err()
			}
			continue // unknown fields and wrong types: the item was read whole
		}
		events = append(events, e)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return nil, notArray(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, governance.Errorf(governance.EINVALID, "The body holds more than one JSON value.")
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	return events, nil
}

// apiRecallRequest is the body of POST /api/v1/recall; the project is the token's.
type apiRecallRequest struct {
	Task          string            `json:"task"`
	SubjectID     string            `json:"subject_id"`
	TaskType      string            `json:"task_type"`
	Risk          string            `json:"risk"`
	Budget        governance.Budget `json:"budget"`
	IncludeEvents bool              `json:"include_events"`
}

// handleAPIRecall returns the context package for a task. Its trace lists
// only in-scope memories; what the scope filter removed is only counted.
func (s *Server) handleAPIRecall(c echo.Context) error {
	t := tokenFrom(c.Request().Context())
	var body apiRecallRequest
	if err := decodeJSON(c, APIMaxBodyBytes, &body); err != nil {
		return err
	}
	ctx := c.Request().Context()
	pkg, err := s.app.Recalls.Recall(ctx, actorOf(ctx), governance.RecallRequest{
		Task: body.Task, ProjectID: t.ProjectID, SubjectID: body.SubjectID, TaskType: body.TaskType,
		Risk: body.Risk, Budget: body.Budget, IncludeEvents: body.IncludeEvents,
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, pkg)
}

// apiRuleList is the body of GET /api/v1/rules.
type apiRuleList struct {
	Rules  []*governance.Rule `json:"rules"`
	Total  int                `json:"total"`
	Limit  int                `json:"limit"`
	Offset int                `json:"offset"`
}

// handleAPIRuleIndex lists the token's project's rules (active by default).
// Forgotten rules are never listed.
func (s *Server) handleAPIRuleIndex(c echo.Context) error {
	ctx := c.Request().Context()
	t := tokenFrom(ctx)
	q := c.QueryParams()
	in := governance.RuleFilterInput{Status: q.Get("status"), Kind: q.Get("kind"), Reason: q.Get("reason"),
		Paused: q.Get("paused"), ForSubject: q.Get("for_subject"), Query: q.Get("q"),
		Limit: q.Get("limit"), Offset: q.Get("offset")}
	if q.Has("subject_id") {
		v := q.Get("subject_id")
		in.Subject = &v
	}
	list, err := s.app.Rules.List(ctx, actorOf(ctx), app.RuleListQuery{ProjectID: t.ProjectID, Filter: in, Defaults: app.AgentRuleDefaults, Agent: true})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiRuleList{Rules: list.Rules, Total: list.Total, Limit: list.Filter.Limit, Offset: list.Filter.Offset})
}

// apiForgetRequest is the optional body of POST /api/v1/rules/{id}/forget.
type apiForgetRequest struct {
	WithEvents bool `json:"with_events"`
}

// apiForgetResult answers a forget: what was forgotten, as ids, counts and
// a content hash — never the content.
type apiForgetResult struct {
	Forgotten        string                   `json:"forgotten,omitempty"`
	ForgottenSubject string                   `json:"forgotten_subject,omitempty"`
	WithEvents       bool                     `json:"with_events,omitempty"`
	Report           *governance.ForgetReport `json:"report"`
}

// handleAPIRuleForget forgets one rule of the token's project completely.
func (s *Server) handleAPIRuleForget(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := idParam(c, "id", "rule")
	if err != nil {
		return err
	}
	var body apiForgetRequest
	if err := decodeOptionalJSON(c, APIMaxBodyBytes, &body); err != nil {
		return err
	}
	report, err := s.app.Forget.Rule(ctx, actorOf(ctx), id, body.WithEvents)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiForgetResult{Forgotten: governance.RecallRuleID(id), WithEvents: body.WithEvents, Report: report})
}

// handleAPISubjectForget forgets everything about one subject of the
// token's project: every memory and event.
func (s *Server) handleAPISubjectForget(c echo.Context) error {
	ctx := c.Request().Context()
	t := tokenFrom(ctx)
	subject, err := pathParam(c, "id")
	if err != nil {
		return err
	}
	report, err := s.app.Forget.Subject(ctx, actorOf(ctx), t.ProjectSlug, subject)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, apiForgetResult{ForgottenSubject: subject, Report: report})
}
