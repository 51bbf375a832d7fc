/**
 * A command that does nothing in the player's current state: pause while nothing
 * plays, toggle_cc with no caption track, previous_channel with none before, a seek
 * mpv cannot make. The specification answers every control call with the player's
 * status, so such a command is a 200 with the status as it stands, not an error; the
 * reason is logged. Errors stay for what the caller must fix (400, 404, 502, 503, 504).
 */
export class NoEffect extends Error {
  override readonly name = 'NoEffect';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
