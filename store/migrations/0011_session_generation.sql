-- Sign-in cookies carry the account's session generation; signing out or
-- changing the password moves it on, so every copy of an older cookie
-- (another browser, a stolen one) stops working at once.
ALTER TABLE accounts ADD COLUMN session_gen INTEGER NOT NULL DEFAULT 0;
