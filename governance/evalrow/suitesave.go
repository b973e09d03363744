package evalrow

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
)

// SuiteTx is the SQL a suite save takes, each step inside the one
// transaction the store opened for it.
type SuiteTx interface {
	// Now is the transaction's time.
	Now() time.Time
	// LockSuiteByName reads the suite named name for a change; ENOTFOUND
	// when there is none.
	LockSuiteByName(ctx context.Context, name string) (*SuiteRow, error)
	// InsertSuite inserts suite and sets its ID.
	InsertSuite(ctx context.Context, suite *SuiteRow) error
	// UpdateSuiteBody gives suite id a new body.
	UpdateSuiteBody(ctx context.Context, id int64, body string) error
	// DropSuiteData deletes every part of suite id's data file.
	DropSuiteData(ctx context.Context, id int64) error
	// InsertSuitePart stores one part of suite id's data file.
	InsertSuitePart(ctx context.Context, id int64, part int, b []byte) error
	// Audit appends an entry to the audit log.
	Audit(ctx context.Context, e *governance.AuditEntry) error
}

// SaveSuite stores suite by name through tx: a new name is inserted, an
// existing suite of the same origin gets the new body, and an uploaded
// suite may not replace a built-in one or the reverse (ECONFLICT). When
// the body changes, the suite's data file is replaced by the one data
// reads (none when data is nil) and the save is audited. It reports
// whether anything changed: the caller commits only then.
func SaveSuite(ctx context.Context, tx SuiteTx, suite *SuiteRow, data io.Reader, actor string) (bool, error) {
	if strings.TrimSpace(suite.Name) == "" {
		return false, governance.Errorf(governance.EINVALID, "A suite needs a name.")
	}
	if suite.Origin != OriginBuiltin && suite.Origin != OriginUploaded && suite.Origin != OriginRegression {
		return false, governance.Errorf(governance.EINVALID, "Suite origin %q is not builtin, uploaded or regression.", suite.Origin)
	}
	now := tx.Now()
	old, err := tx.LockSuiteByName(ctx, suite.Name)
	switch governance.ErrorCode(err) {
	case governance.ENOTFOUND:
		suite.CreatedAt, suite.UpdatedAt = now, now
		if err := tx.InsertSuite(ctx, suite); err != nil {
			return false, err
		}
	case "":
		if old.Origin != suite.Origin {
			return false, governance.Errorf(governance.ECONFLICT, "A %s suite named %q already exists; choose another name.", old.Origin, suite.Name)
		}
		suite.ID, suite.CreatedAt, suite.UpdatedAt = old.ID, old.CreatedAt, old.UpdatedAt
		if old.Body == suite.Body {
			return false, nil
		}
		if err := tx.UpdateSuiteBody(ctx, old.ID, suite.Body); err != nil {
			return false, fmt.Errorf("update eval suite: %w", err)
		}
		suite.UpdatedAt = now
	default:
		return false, err
	}
	if err := tx.DropSuiteData(ctx, suite.ID); err != nil {
		return false, fmt.Errorf("drop eval suite data: %w", err)
	}
	if data != nil {
		if err := WriteSuiteData(data, func(part int, b []byte) error {
			return tx.InsertSuitePart(ctx, suite.ID, part, b)
		}); err != nil {
			return false, fmt.Errorf("save eval suite data: %w", err)
		}
	}
	return true, tx.Audit(ctx, &governance.AuditEntry{
		Actor: actor, Action: "eval.suite_save", ObjectType: "eval_suite", ObjectID: fmt.Sprint(suite.ID),
		Details: suite.Origin + " " + suite.Name,
	})
}
