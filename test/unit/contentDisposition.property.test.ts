import fc from 'fast-check';

import { fileNameFromContentDisposition } from '../../nodes/ServiceReader/helpers/contentDisposition';
import { runs } from '../property/fc';

/**
 * Content-Disposition as a Service may write it (RFC 6266): the file name, quoted (with `\` escapes) or as
 * `filename*=UTF-8'lang'%XX`, among other parameters in any order and spacing, whose quoted values may hold
 * `;`, `=` and `filename=`. Read in one pass (issue 31), the name comes back as written, `filename*` first.
 */

// A name the function keeps whole: no directory part, not `.` or `..`, no space at either end.
const fileName = fc
	.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom('a', 'Z', '0', '.', '-', ' ', '"', '\\', ';', '=', "'", 'é', '€', '😀') })
	.filter((name) => name.trim() === name && name !== '.' && name !== '..' && !name.includes('\\'));
const quoted = (text: string) => `"${text.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
const extra = fc.constantFrom('size=3', 'title="a; filename=wrong.zip"', 'creation-date="Wed, 12 Feb 1997 16:29:51 -0500"', 'name=x', 'foo="="');
const space = fc.constantFrom('', ' ', '  ', '\t');

describe('fileNameFromContentDisposition, generated headers', () => {
	it('reads back the name written quoted, or as filename* (which wins), among other parameters', () => {
		fc.assert(
			fc.property(
				fileName,
				fc.option(fileName, { nil: undefined }),
				fc.array(extra, { maxLength: 3 }),
				fc.nat(),
				space,
				fc.constantFrom('attachment', 'inline', 'ATTACHMENT'),
				(plain, extended, extras, at, gap, type) => {
					const parameters: string[] = [...extras];
					parameters.splice(at % (parameters.length + 1), 0, `filename${gap}=${gap}${quoted(plain)}`);
					if (extended !== undefined) parameters.splice((at >> 2) % (parameters.length + 1), 0, `filename*=UTF-8'en'${encodeURIComponent(extended)}`);
					const header = [type, ...parameters].join(`${gap};${gap}`);
					expect(fileNameFromContentDisposition(header)).toBe(extended ?? plain);
				},
			),
			runs(500),
		);
	});
});
