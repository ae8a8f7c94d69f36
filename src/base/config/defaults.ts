// Defaults the command line shows in its help: here, apart from the schema, so `--help` loads neither zod nor the YAML readers.

/** The config file every command reads unless told otherwise (--config, RATEFILE_CONFIG). */
export const defaultConfigFile = 'ratefile.config.yaml';

/** The built-in server's default address: this machine only (the dashboard shows operational data); every interface (`0.0.0.0`) is an explicit choice. */
export const DEFAULT_HOST = '127.0.0.1';
