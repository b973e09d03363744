package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
)

// auditKeyed is a store whose audit chain is sealed with a key.
type auditKeyed interface {
	SetAuditKey(ctx context.Context, actor string, key []byte) (keyedNow bool, before int, err error)
	AuditKeyed(ctx context.Context) (bool, error)
}

// auditKeyPath is the audit key file of cfg (on PostgreSQL only an
// explicit one, see keyAudit).
func (c Config) auditKeyPath() string {
	if c.AuditKeyFile != "" {
		return c.AuditKeyFile
	}
	return filepath.Join(c.DataDir, "audit.key")
}

// loadAuditKey reads the audit key: MNEMO_AUDIT_KEY, else the key file,
// which is made (32 random bytes, hex, readable by its owner only) when it
// does not exist yet.
func loadAuditKey(cfg Config) ([]byte, error) {
	if cfg.AuditKey != "" {
		return parseAuditKey(cfg.AuditKey, "MNEMO_AUDIT_KEY")
	}
	path := cfg.auditKeyPath()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, errorf("audit key: %v", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return loadAuditKey(cfg) // made by another process meanwhile
		}
		if err != nil {
			return nil, errorf("audit key: %v", err)
		}
		_, err = f.WriteString(hex.EncodeToString(key) + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return nil, errorf("audit key: %v", err)
		}
		return key, nil
	}
	if err != nil {
		return nil, errorf("audit key: %v", err)
	}
	return parseAuditKey(string(b), path)
}

func parseAuditKey(s, from string) ([]byte, error) {
	key, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(key) < 16 {
		return nil, errorf("audit key in %s: want at least 32 hex digits", from)
	}
	return key, nil
}

// keyAudit gives st the configured audit key, keying a chain written
// without one from here on (logged: the rows before stay checked with
// SHA-256 only).
func keyAudit(ctx context.Context, st auditKeyed, cfg Config, logger *slog.Logger) error {
	if cfg.Database != "" && cfg.AuditKey == "" && cfg.AuditKeyFile == "" {
		// Instances on one PostgreSQL database share its chain, so they
		// share one key, which only the operator can give them all.
		keyed, err := st.AuditKeyed(ctx)
		if err != nil {
			return err
		}
		if keyed {
			return errorf("the audit chain of this database is sealed with a key: give it (MNEMO_AUDIT_KEY or --audit-key-file)")
		}
		if logger != nil {
			logger.Warn("audit chain not keyed: give every instance on this database the same key (MNEMO_AUDIT_KEY or --audit-key-file)")
		}
		return nil
	}
	key, err := loadAuditKey(cfg)
	if err != nil {
		return err
	}
	keyedNow, before, err := st.SetAuditKey(ctx, "system", key)
	if err != nil {
		if governance.ErrorCode(err) == governance.EINVALID {
			return errorf("audit key %s: %s", auditKeySource(cfg), governance.ErrorMessage(err))
		}
		return err
	}
	if keyedNow && logger != nil {
		logger.Warn("audit chain keyed from now on", slog.Int("rows_before", before), slog.String("key", auditKeySource(cfg)))
	}
	return nil
}

// auditKeySource names where the key came from, never the key.
func auditKeySource(cfg Config) string {
	if cfg.AuditKey != "" {
		return "MNEMO_AUDIT_KEY"
	}
	return cfg.auditKeyPath()
}
