/** Components rendered to HTML (react-dom/server): what a person reads when something fails. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/http-client';
import { ErrorNotice, describeError } from '../src/components/error-notice';
import { describeHlsError, startGapTarget } from '../src/sections/player/use-hls';

describe('error messages', () => {
  it("shows the server's own message as an alert, with a way to try again", () => {
    const html = renderToStaticMarkup(
      <ErrorNotice
        error={new ApiError(409, 'not_a_recording', 'Imported files are never deleted.')}
        retry={() => undefined}
      />,
    );
    expect(html).toContain('role="alert"');
    expect(html).toContain('Imported files are never deleted.');
    expect(html).toContain('Try again');
  });

  it('escapes what the server says (no HTML from data)', () => {
    const html = renderToStaticMarkup(<ErrorNotice error={new ApiError(400, 'bad', '<img src=x onerror=alert(1)>')} />);
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img');
  });

  it('describes unknown failures and stream failures in words', () => {
    expect(describeError('boom')).toBe('Something went wrong.');
    expect(
      describeHlsError({
        type: 'networkError' as never,
        details: 'manifestLoadError' as never,
        response: { code: 503 },
      }),
    ).toMatch(/too busy/);
    expect(
      describeHlsError({ type: 'networkError' as never, details: 'fragLoadError' as never, response: { code: 500 } }),
    ).toMatch(/HTTP 500/);
    expect(describeHlsError({ type: 'mediaError' as never, details: 'bufferAppendError' as never })).toMatch(
      /cannot decode/,
    );
  });
});

describe('a start gap before the first buffered frames', () => {
  it('moves a playhead waiting before a near first range to its start, and leaves one that can play', () => {
    expect(startGapTarget(0, [[1.023, 36]])).toBe(1.023);
    expect(startGapTarget(0, [[0, 36]])).toBeNull();
    expect(startGapTarget(10, [[0, 36]])).toBeNull();
    expect(startGapTarget(0, [])).toBeNull();
    expect(startGapTarget(0, [[30, 40]])).toBeNull();
    expect(
      startGapTarget(36, [
        [0, 36],
        [37, 50],
      ]),
    ).toBe(37);
  });
});
