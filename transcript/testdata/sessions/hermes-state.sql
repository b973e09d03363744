-- A synthetic Hermes Agent state.db: the sessions and messages tables as
-- Hermes creates them, two sessions of one person on a deploy project. Tool
-- output carries terminal colours and a carriage-return progress line
-- (JSON-escaped, as Hermes stores it); the first session has a failed check fixed by a change,
-- the second a standing instruction in Chinese.
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT
);
INSERT INTO sessions (id, source, user_id, model, started_at, ended_at, end_reason) VALUES
    ('20251115_100000_a1b2', 'cli', 'lin', 'hermes-4-70b', 1763200800.0, 1763201400.0, 'user_exit'),
    ('20251116_090000_c3d4', 'telegram', 'lin', 'hermes-4-70b', 1763283600.0, 1763284200.0, 'user_exit');
INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp) VALUES
    ('20251115_100000_a1b2', 'system', 'You are Hermes, a helpful agent.', NULL, NULL, NULL, 1763200800.1),
    ('20251115_100000_a1b2', 'user', 'Deploy the web app to staging.', NULL, NULL, NULL, 1763200801.0),
    ('20251115_100000_a1b2', 'assistant', 'Deploying to staging.', NULL,
        '[{"id":"call_h1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"./deploy.sh staging\"}"}}]', NULL, 1763200802.0),
    ('20251115_100000_a1b2', 'tool',
        '{"output":"\u001b[1mDeploying web to staging\u001b[0m\n\u001b[31mError: environment variable DATABASE_URL is not set\u001b[0m","exit_code":1,"error":null}',
        'call_h1', NULL, 'terminal', 1763200803.0),
    ('20251115_100000_a1b2', 'assistant', 'The deploy script needs DATABASE_URL. I''ll load the staging env file before running the deploy.', NULL,
        '[{"id":"call_h2","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"./deploy.sh staging\"}"}}]', NULL, 1763200804.0),
    ('20251115_100000_a1b2', 'tool',
        '{"output":"uploading  20%\r\u001b[Kuploading  70%\r\u001b[Kuploading 100%\n\u001b[32mdeployed web to staging\u001b[0m","exit_code":0,"error":null}',
        'call_h2', NULL, 'terminal', 1763200805.0),
    ('20251115_100000_a1b2', 'assistant', 'Staging is up.', NULL, NULL, NULL, 1763200806.0),
    ('20251116_090000_c3d4', 'user', '以后每次部署前都要先跑数据库迁移检查，这条一直有效。', NULL, NULL, NULL, 1763283601.0),
    ('20251116_090000_c3d4', 'assistant', '好的，以后部署前我都会先检查迁移。', NULL,
        '[{"id":"call_h3","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"make migrate-check\"}"}}]', NULL, 1763283602.0),
    ('20251116_090000_c3d4', 'tool', '{"output":"\u001b[32m✓\u001b[0m no pending migrations","exit_code":0,"error":null}', 'call_h3', NULL, 'terminal', 1763283603.0);
