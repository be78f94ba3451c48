import Ajv from 'ajv';

import type { OptionsValidator } from '../../core/plugin-contract/plugin-registry';

/** ajv behind the registry's OptionsValidator: defaults applied, every error reported. */
export function ajvOptionsValidator(): OptionsValidator {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false });
  return {
    compile(schema) {
      const validate = ajv.compile(schema);
      return (input) => {
        const value = structuredClone(input);
        if (validate(value)) return { valid: true, value };
        const errors = (validate.errors ?? []).map(
          (e) => `${e.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'options'} ${e.message ?? 'is invalid'}`,
        );
        return { valid: false, errors };
      };
    },
  };
}
