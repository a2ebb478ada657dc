/** The Gemini fake's answer to an addressing call: addressed or not, sure of it, never joining in. */
export function addressVerdict(addressed: boolean, messageId?: number, reason = "scripted") {
  return {
    json: {
      reason,
      addressed,
      confidence: 0.9,
      ...(messageId !== undefined ? { message_id: messageId } : {}),
      wanna_interject: false,
      interject: 0,
      is_lightweight: false,
    },
  };
}
