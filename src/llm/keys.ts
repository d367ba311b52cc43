// Which provider API keys are set (doctor, models). Provider-specific variables are preferred;
// LLM_API_KEY is accepted for any, as in the reference.

export const KEY_VARIABLES: Record<string, string[]> = {
  openai: ["OPENAI_API_KEY", "LLM_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY", "LLM_API_KEY"],
  dashscope: ["DASHSCOPE_API_KEY", "LLM_API_KEY"],
  deepseek: ["DEEPSEEK_API_KEY", "LLM_API_KEY"],
  gemini: ["GEMINI_API_KEY", "GOOGLE_API_KEY", "LLM_API_KEY"],
  moonshot: ["MOONSHOT_API_KEY", "LLM_API_KEY"],
  zai: ["ZAI_API_KEY", "LLM_API_KEY"],
};

export function providerKeyStatus(env: NodeJS.ProcessEnv = process.env) {
  return Object.entries(KEY_VARIABLES).map(([provider, variables]) => {
    const variable = variables.find((v) => env[v]);
    return { provider, variables, set: Boolean(variable), variable };
  });
}
