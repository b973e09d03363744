package governance

// The policy: who may do what to which object. Every authorization check
// of the console — pages, agent API, MCP tools — is a call to Can, so the
// rules below are the whole of it. Routes only require a signed-in account
// (or an admin, or a token) before a handler runs; everything about
// projects and subjects is decided here.

// Actor is who acts: a signed-in account (admin, reviewer of some
// projects, member for one subject of a project) or an agent's project API
// token (one project, some scopes). The zero Actor is anonymous.
type Actor struct {
	Account *Account
	Token   *APIToken
}

// AccountActor is the actor of a signed-in account (nil: anonymous).
func AccountActor(a *Account) Actor { return Actor{Account: a} }

// TokenActor is the actor of a verified API token.
func TokenActor(t *APIToken) Actor { return Actor{Token: t} }

// Anonymous reports whether nobody is signed in.
func (a Actor) Anonymous() bool { return a.Account == nil && a.Token == nil }

// Name is the actor's name in audit rows and recall traces.
func (a Actor) Name() string {
	switch {
	case a.Account != nil:
		return a.Account.Username
	case a.Token != nil:
		return a.Token.Actor()
	}
	return ""
}

// Action is what an actor wants to do.
type Action string

const (
	// ActSee: see a project's data about one subject (Object.SubjectID;
	// nil = all of it). Members see their own subject only.
	ActSee Action = "see"
	// ActReview: review and govern every memory of a project: the review
	// queue, rule pages and actions, project exports. Admins and the
	// project's reviewers.
	ActReview Action = "review"
	// ActReviewAny: use the reviewers' pages that span projects (rules
	// list, review index, heartbeat, evals): reviewers of any project.
	ActReviewAny Action = "review_any"
	// ActForgetRule: forget one rule (Object.SubjectID is the rule's
	// subject, "" for a project-wide rule): reviewers, or the member the
	// rule is about. A member may not forget a project-wide rule.
	ActForgetRule Action = "forget_rule"
	// ActForgetCandidate: forget one candidate: reviewers, or the member it
	// is about.
	ActForgetCandidate Action = "forget_candidate"
	// ActForgetSubject: forget everything about one subject of a project:
	// admins, the member themself, or a token with the forget scope.
	ActForgetSubject Action = "forget_subject"
	// ActPropose: write a new memory of a project by hand (Object.SubjectID
	// is the subject it is about, "" for the whole project); it waits in
	// the review queue. Reviewers, for any scope; a member only about
	// their own subject.
	ActPropose Action = "propose"
	// ActAdminister: import, API tokens, project policy, forgetting any
	// subject from the admin page: administrators only.
	ActAdminister Action = "administer"
	// Agent actions, for project API tokens with the scope of the same
	// name (and for accounts: ActIngest is admin-only, the others follow
	// ActSee).
	ActIngest Action = "ingest"
	ActRecall Action = "recall"
	ActExport Action = "export"
	// ActReadSkills: read a project's skills — its reviewers and admins
	// (the skills pages, with every status), its tokens with the recall
	// scope (active skills only, through the agent surfaces).
	ActReadSkills Action = "read_skills"
	// ActImportSkills: import skill folders into a project (the CLI, the
	// upload page, followed directories): administrators only.
	ActImportSkills Action = "import_skills"
)

// Actions lists every action, for tests that cover them all.
var Actions = []Action{ActSee, ActReview, ActReviewAny, ActForgetRule, ActForgetCandidate, ActForgetSubject, ActPropose,
	ActAdminister, ActIngest, ActRecall, ActExport, ActReadSkills, ActImportSkills}

// Valid reports whether a is a known action.
func (a Action) Valid() bool {
	for _, x := range Actions {
		if x == a {
			return true
		}
	}
	return false
}

// Object is what an action is about: a project and, optionally, one
// subject in it. ProjectID zero means no particular project.
type Object struct {
	ProjectID int64
	// ProjectSlug names the project in messages.
	ProjectSlug string
	// SubjectID is the subject the object is about; nil when the object
	// is not about one subject ("" = project-wide).
	SubjectID *string
	// Kind names the object in "not found" messages ("Rule", "Candidate").
	Kind string
}

// InProject is an object of project p.
func InProject(p *Project) Object { return Object{ProjectID: p.ID, ProjectSlug: p.Slug} }

// About narrows o to one subject ("" = a project-wide object).
func (o Object) About(subjectID string) Object { o.SubjectID = &subjectID; return o }

// Named names the kind of object for "not found" messages.
func (o Object) Named(kind string) Object { o.Kind = kind; return o }

var (
	errSignIn        = Errorf(EUNAUTHORIZED, "Sign in first.")
	errReviewersOnly = Errorf(EFORBIDDEN, "Only the project's reviewers may do this.")
	errAdminsOnly    = Errorf(EFORBIDDEN, "Only administrators may do this.")
	errDisabled      = Errorf(EUNAUTHORIZED, "This account is disabled.")
)

// Can returns nil when actor may do action to object, else an *Error:
// EUNAUTHORIZED for nobody, EFORBIDDEN for a known object the actor has no
// right to, ENOTFOUND for an object the actor may not even know exists
// (another subject's memory, for a member).
func Can(actor Actor, action Action, object Object) error {
	if !action.Valid() {
		return Errorf(EINTERNAL, "Unknown action %q.", action)
	}
	switch {
	case actor.Token != nil:
		return tokenCan(actor.Token, action, object)
	case actor.Account != nil:
		if actor.Account.Disabled() {
			return errDisabled
		}
		return accountCan(actor.Account, action, object)
	}
	return errSignIn
}

// Scope is what an account may see of one project: everything, or (for a
// member) one subject's data.
type Scope struct {
	// Role is "admin", "reviewer" or "member".
	Role string
	// Subject, when set, limits every query to that subject's data.
	Subject *string
}

// ScopeIn returns the account's scope in project p, or false when it has
// none.
func ScopeIn(a *Account, projectID int64) (Scope, bool) {
	switch {
	case a == nil:
		return Scope{}, false
	case a.IsAdmin:
		return Scope{Role: "admin"}, true
	case a.CanReview(projectID):
		return Scope{Role: string(ProjectReviewer)}, true
	}
	m, ok := a.MembershipFor(projectID)
	if !ok || m.Role != ProjectMember || m.SubjectID == "" {
		return Scope{}, false
	}
	subject := m.SubjectID
	return Scope{Role: string(ProjectMember), Subject: &subject}, true
}

func accountCan(a *Account, action Action, o Object) error {
	switch action {
	case ActAdminister, ActIngest, ActImportSkills:
		if !a.IsAdmin {
			return errAdminsOnly
		}
		return nil
	case ActReviewAny:
		if ids, all := a.ReviewableProjects(); !all && len(ids) == 0 {
			return errReviewersOnly
		}
		return nil
	}
	sc, ok := ScopeIn(a, o.ProjectID)
	if !ok {
		return Errorf(EFORBIDDEN, "You have no access to project %s.", o.ProjectSlug)
	}
	if sc.Subject == nil { // admins and the project's reviewers may do all the rest
		return nil
	}
	own := o.SubjectID != nil && *o.SubjectID == *sc.Subject
	switch action {
	case ActReview:
		return errReviewersOnly
	case ActSee, ActRecall, ActExport, ActForgetCandidate, ActForgetSubject, ActPropose:
		if o.SubjectID == nil {
			if action == ActSee {
				return nil // a member sees the project, limited to their subject
			}
			return errReviewersOnly
		}
		if !own {
			return notFound(o)
		}
		return nil
	case ActForgetRule:
		switch {
		case o.SubjectID == nil:
			return errReviewersOnly
		case *o.SubjectID == "":
			return Errorf(EFORBIDDEN, "This memory is shared by the whole project; use \"forget everything about me\" or ask a reviewer.")
		case !own:
			return notFound(o)
		}
		return nil
	}
	return errReviewersOnly
}

func notFound(o Object) error {
	kind := o.Kind
	if kind == "" {
		kind = "Memory"
	}
	return Errorf(ENOTFOUND, "%s not found.", kind)
}

// tokenScopes maps the agent actions to the token scope each needs.
var tokenScopes = map[Action]TokenScope{
	ActIngest:        ScopeIngest,
	ActRecall:        ScopeRecall,
	ActSee:           ScopeRecall,
	ActForgetRule:    ScopeForget,
	ActForgetSubject: ScopeForget,
	ActExport:        ScopeExport,
	ActReadSkills:    ScopeRecall,
}

func tokenCan(t *APIToken, action Action, o Object) error {
	if t.Revoked() {
		return Errorf(EUNAUTHORIZED, "The API token was revoked.")
	}
	scope, ok := tokenScopes[action]
	if !ok {
		return Errorf(EFORBIDDEN, "API tokens may not do this.")
	}
	if !t.Has(scope) {
		return Errorf(EFORBIDDEN, "This token lacks the %s scope.", scope)
	}
	if o.ProjectID != 0 && o.ProjectID != t.ProjectID {
		return notFound(o)
	}
	return nil
}
