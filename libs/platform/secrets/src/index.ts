export {
  generateSecretsKey,
  isSealedSecret,
  SecretBox,
  secretBoxFromEnv,
  secretHint,
  SecretOpenError,
  SecretsKeyError,
} from './secret-box.js';
