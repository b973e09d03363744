// Package storetest is the store conformance suite: test functions that
// take an Opener returning a fresh, empty store and check the behaviour
// every backend must share. The SQLite store (package store) and the
// PostgreSQL store (package store/postgres) each run the whole suite from
// one test (TestConformance); a test about one engine's internals (its
// pragmas, its index files) stays in that backend's package.
//
// The suite grows with the PostgreSQL store: Store lists the methods both
// implement so far.
package storetest

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/evals"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/evalrow"
)

// Store is the part of a store the suite exercises: the methods with the
// SQLite store's names and signatures that every backend implements.
type Store interface {
	Ping(ctx context.Context) error
	CurrentTime() time.Time
	SessionKeys(ctx context.Context) (hashKey, blockKey []byte, err error)

	CreateProject(ctx context.Context, p *governance.Project) error
	FindProjects(ctx context.Context) ([]*governance.Project, error)
	FindProjectBySlug(ctx context.Context, slug string) (*governance.Project, error)
	FindProjectByID(ctx context.Context, id int64) (*governance.Project, error)
	SetProjectPolicy(ctx context.Context, projectID int64, autoActivate bool) error
	SetProjectAutoActivate(ctx context.Context, actor string, projectID int64, on bool) error
	SetProjectSingleUser(ctx context.Context, actor string, projectID int64, on bool) error

	CreateAccount(ctx context.Context, a *governance.Account) error
	FindAccounts(ctx context.Context) ([]*governance.Account, error)
	FindAccountByID(ctx context.Context, id int64) (*governance.Account, error)
	FindAccountByUsername(ctx context.Context, username string) (*governance.Account, error)
	SetPasswordHash(ctx context.Context, accountID int64, hash string) error
	SetAccountLanguage(ctx context.Context, accountID int64, lang string) error
	EndSessions(ctx context.Context, accountID int64) error
	SetMembership(ctx context.Context, m governance.Membership) error
	RemoveMembership(ctx context.Context, accountID, projectID int64) error

	CreateAccountBy(ctx context.Context, actor string, a *governance.Account) error
	UpdateAccount(ctx context.Context, actor string, id int64, upd governance.AccountUpdate) error
	SetMembershipBy(ctx context.Context, actor string, m governance.Membership) error
	RemoveMembershipBy(ctx context.Context, actor string, accountID, projectID int64) error
	CreateProjectBy(ctx context.Context, actor string, p *governance.Project) error
	UpdateProject(ctx context.Context, actor string, id int64, upd governance.ProjectUpdate) error

	AppendAudit(ctx context.Context, e *governance.AuditEntry) error
	FindAudit(ctx context.Context, f governance.AuditFilter) ([]*governance.AuditEntry, int, error)
	VerifyAudit(ctx context.Context) (*governance.AuditVerification, error)

	CreateToken(ctx context.Context, t *governance.APIToken, hash string) error
	RevokeToken(ctx context.Context, id int64, actor string) error
	FindTokenByID(ctx context.Context, id int64) (*governance.APIToken, error)
	FindTokenByHash(ctx context.Context, hash string) (*governance.APIToken, error)
	FindTokens(ctx context.Context, f governance.TokenFilter) ([]*governance.APIToken, error)
	TouchToken(ctx context.Context, t *governance.APIToken) error

	EnsureSource(ctx context.Context, src *governance.FollowSource) error
	FindSources(ctx context.Context) ([]*governance.FollowSource, error)
	FindSourceFile(ctx context.Context, sourceID int64, path string) (*governance.FollowFile, error)
	SetSourceFileError(ctx context.Context, sourceID int64, path, problem string) error
	StopSource(ctx context.Context, id int64, actor string) (*governance.FollowSource, error)
	ImportChunk(ctx context.Context, projectID, sourceID int64, path string, cp governance.FollowCheckpoint, reopen, problem string,
		produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error)

	UpsertEvalSuite(ctx context.Context, suite *evalrow.SuiteRow, actor string) error
	UpsertEvalSuiteData(ctx context.Context, suite *evalrow.SuiteRow, data io.Reader, actor string) error
	OpenEvalSuiteData(ctx context.Context, suiteID int64) (io.ReadCloser, error)
	FindEvalSuiteByID(ctx context.Context, id int64) (*evalrow.SuiteRow, error)
	FindEvalSuiteByName(ctx context.Context, name string) (*evalrow.SuiteRow, error)
	FindEvalSuites(ctx context.Context) ([]*evalrow.SuiteRow, error)
	CreateEvalRun(ctx context.Context, run *evalrow.RunRow) error
	FindEvalRunByID(ctx context.Context, id int64) (*evalrow.RunRow, error)
	FindEvalRuns(ctx context.Context, f evalrow.RunFilter) ([]*evalrow.RunRow, int, error)
	ClaimEvalRun(ctx context.Context) (*evalrow.RunRow, error)
	UpdateEvalRun(ctx context.Context, id int64, upd evalrow.RunUpdate) error
	SaveEvalResult(ctx context.Context, res *evalrow.ResultRow, tokens int, cost float64) error
	FindEvalResults(ctx context.Context, runID int64) ([]*evalrow.ResultRow, error)
	FinishEvalRun(ctx context.Context, id int64, status evalrow.RunStatus, summary, errMsg string) (bool, error)
	CancelEvalRun(ctx context.Context, id int64, actor string) error

	IngestEvents(ctx context.Context, projectID int64, events []*governance.Event) (*governance.ImportResult, error)
	ImportEvents(ctx context.Context, actor string, projectID int64, events []*governance.Event) (*governance.ImportResult, error)
	ImportStream(ctx context.Context, actor string, projectID int64, produce func(emit func(*governance.Event) error) error) (*governance.ImportResult, error)
	FindEvents(ctx context.Context, f governance.EventFilter) ([]*governance.Event, int, error)
	FindEventBySeq(ctx context.Context, seq int64) (*governance.Event, error)
	FindSessions(ctx context.Context, f governance.SessionFilter) ([]*governance.SessionInfo, int, error)
	FindSession(ctx context.Context, projectID int64, sessionID string) (*governance.SessionInfo, error)
	SearchEvents(ctx context.Context, f governance.EventFilter) ([]*governance.EventHit, int, error)

	PreviewForgetRules(ctx context.Context, ids []int64, withEvents bool) (*governance.ForgetPreview, error)
	PreviewForgetRule(ctx context.Context, ruleID int64, withEvents bool) (*governance.ForgetPreview, error)
	PreviewForgetSubject(ctx context.Context, projectID int64, subjectID string) (*governance.ForgetPreview, error)
	PreviewForgetCandidate(ctx context.Context, candidateID int64, withEvents bool) (*governance.ForgetPreview, error)
	ForgetRule(ctx context.Context, actor string, ruleID int64, withEvents bool) (*governance.ForgetReport, error)
	ForgetRules(ctx context.Context, actor string, ids []int64, withEvents bool) (*governance.ForgetReport, error)
	ForgetSubject(ctx context.Context, actor string, projectID int64, subjectID string) (*governance.ForgetReport, error)
	ForgetCandidate(ctx context.Context, actor string, candidateID int64, withEvents bool) (*governance.ForgetReport, error)
	PreviewDeleteProject(ctx context.Context, id int64) (*governance.ProjectDeletion, error)
	DeleteProject(ctx context.Context, actor string, id int64) (*governance.ProjectDeletion, error)
	DeleteScratchProjects(ctx context.Context, prefix string) error
	evals.ScratchOwners
	CopyEvents(ctx context.Context, prefix string, sourceID, scratchID int64) (int, error)
	EventCopyForgets(ctx context.Context, prefix string) (map[int64]int, error)

	FindProjectStats(ctx context.Context) ([]*governance.ProjectStats, error)
	FindSubjectStats(ctx context.Context, p *governance.Project, subjectID string) (*governance.ProjectStats, error)
	FindRuleChecks(ctx context.Context, ruleIDs []int64) (map[int64]string, error)
	SetRuleChecks(ctx context.Context, ruleID int64, checks, actor string) error

	Recall(ctx context.Context, actor string, req governance.RecallRequest) (*governance.RecallPackage, error)
	FindRecallTraces(ctx context.Context, f governance.RecallTraceFilter) ([]*governance.RecallTraceInfo, int, error)

	ExportJSONL(ctx context.Context, projectID int64, w io.Writer, opts governance.ExportOptions) (*governance.ExportStats, error)
	ImportExport(ctx context.Context, r io.Reader, opts governance.ImportOptions) (*governance.Project, *governance.ExportStats, error)
	ExportHermes(ctx context.Context, projectID int64, subjectID string) (*governance.HermesExport, error)
	ExportAgentFiles(ctx context.Context, projectID int64, subjectID string) ([]governance.AgentFile, *governance.HermesExport, error)

	SkillStore
}

// Opener returns a fresh store for tb, closed when tb ends: an empty one,
// or, given a State, one in the state its Build leaves an empty store in.
// A backend builds each named state once per test binary and gives every
// test its own copy (store/sqlitetest copies the database file; the
// PostgreSQL tests create each test's database from a template holding
// the state), so a test may change its store freely. An opener that
// keeps no copies may build the state in each store (Build).
type Opener func(tb testing.TB, from ...State) Store

// State is a named starting state of a store. Build brings an empty store
// into it; it must be deterministic, since every test opening the same
// Name gets a copy of its one result, and must not keep the store.
type State struct {
	Name  string
	Build func(ctx context.Context, s Store) error
}

// Build brings the fresh store s, which tb owns, into the states from (in
// order), for openers that keep no copies.
func Build(tb testing.TB, s Store, from ...State) Store {
	tb.Helper()
	for _, st := range from {
		if err := st.Build(context.Background(), s); err != nil {
			tb.Fatalf("state %q: %v", st.Name, err)
		}
	}
	return s
}

// Run runs the whole suite against stores from open, one parallel
// subtest per test function (each opens its own stores).
func Run(t *testing.T, open Opener) {
	for _, tc := range append([]struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"System", TestSystem},
		{"Projects", TestProjects},
		{"ProjectPolicy", TestProjectPolicy},
		{"Accounts", TestAccounts},
		{"AccountChanges", TestAccountChanges},
		{"SessionKeys", TestSessionKeys},
		{"AdminAccounts", TestAdminAccounts},
		{"AdminMemberships", TestAdminMemberships},
		{"AdminProjects", TestAdminProjects},
		{"Audit", TestAudit},
		{"Tokens", TestTokens},
		{"IngestEvents", TestIngestEvents},
		{"IngestConcurrent", TestIngestConcurrent},
		{"SessionOrder", TestSessionOrder},
		{"ImportStream", TestImportStream},
		{"Sources", TestSources},
		{"EvalSuites", TestEvalSuites},
		{"EvalSuiteData", TestEvalSuiteData},
		{"EvalRunLifecycle", TestEvalRunLifecycle},
		{"SearchEvents", TestSearchEvents},
		{"SearchCJKPairs", TestSearchCJKPairs},
		{"SearchRarerWordsFirst", TestSearchRarerWordsFirst},
		{"SearchManyMatches", TestSearchManyMatches},
		{"ExportImport", TestExportImport},
		{"ExportMemoryFiles", TestExportMemoryFiles},
		{"ExportHermes", TestExportHermes},
		{"Recall", TestRecall},
		{"ForgetRule", TestForgetRule},
		{"ForgetSubject", TestForgetSubject},
		{"ForgetCandidate", TestForgetCandidate},
		{"ForgetSubjectTombstones", TestForgetSubjectTombstones},
		{"ForgetSubjectWithoutEvents", TestForgetSubjectWithoutEvents},
		{"ForgetRuleRedactsRestatements", TestForgetRuleRedactsRestatements},
		{"ForgetRedactsParaphrases", TestForgetRedactsParaphrases},
		{"ProposeMemory", TestProposeMemory},
		{"ForgetDuringBeat", TestForgetDuringBeat},
		{"ForgetDuringImport", TestForgetDuringImport},
		{"SuppressionScope", TestSuppressionScope},
		{"ForgetScrubsEvalResults", TestForgetScrubsEvalResults},
		{"ForgetWithholdsEvalReads", TestForgetWithholdsEvalReads},
		{"ForgetSubjectLeavesNoTie", TestForgetSubjectLeavesNoTie},
		{"ForgetDuringEval", TestForgetDuringEval},
		{"ForgetDuringEvalCopy", TestForgetDuringEvalCopy},
		{"DeleteProject", TestDeleteProject},
		{"DeleteScratchProjects", TestDeleteScratchProjects},
		{"Stats", TestStats},
		{"RuleChecks", TestRuleChecks},
		{"Outcomes", TestOutcomes},
		{"Skills", TestSkills},
		{"MaskSkillVersions", TestMaskSkillVersions},
		{"ForgetSkills", TestForgetSkills},
	}, memoryTests...) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, open)
		})
	}
}

// MustCreateProject creates a project with the given slug.
func MustCreateProject(tb testing.TB, s Store, slug string) *governance.Project {
	tb.Helper()
	p := &governance.Project{Slug: slug, Name: slug}
	if err := s.CreateProject(context.Background(), p); err != nil {
		tb.Fatal(err)
	}
	return p
}

// Ev is a message event of subject "family-1", turn minutes after 09:00.
func Ev(id, session string, turn int, role governance.Role, text string) *governance.Event {
	return &governance.Event{ID: id, SessionID: session, SubjectID: "family-1", Turn: turn, Role: role, Text: text,
		OccurredAt: time.Date(2026, 6, 15, 9, turn, 0, 0, time.UTC)}
}
