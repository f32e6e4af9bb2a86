// The in-process-alt project: every sandbox these suites start speaks the alt dialect.
process.env.SANDBOX_DIALECT = 'alt';
