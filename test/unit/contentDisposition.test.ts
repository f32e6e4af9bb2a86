import { fileNameFromContentDisposition } from '../../nodes/ServiceReader/helpers/contentDisposition';

describe('fileNameFromContentDisposition', () => {
	it.each([
		['attachment; filename="KS-1009-v1.json"', 'KS-1009-v1.json'],
		['attachment; filename=AP-1001-1.zip', 'AP-1001-1.zip'],
		['attachment; FILENAME = "pack.zip" ; size=3', 'pack.zip'],
		['attachment; filename="a \\"quoted\\" name.zip"', 'a "quoted" name.zip'],
		['attachment; filename="fallback.zip"; filename*=UTF-8\'\'%C3%A9t%C3%A9.zip', 'été.zip'],
		['attachment; filename*=UTF-8\'en\'r%C3%A9sum%C3%A9.json', 'résumé.json'],
		['attachment; filename="../../etc/passwd"', 'passwd'],
		['attachment; filename="C:\\\\temp\\\\x.zip"', 'x.zip'],
		// Parameters are read one by one: a `filename=` inside another's quoted value is not the file name.
		['attachment; title="a; filename=wrong.zip"; filename="right.zip"', 'right.zip'],
		['attachment; filename="unterminated.zip', 'unterminated.zip'],
		['attachment;filename*=utf-8\'\'%41%20b.zip;filename=c.zip', 'A b.zip'],
	])('reads %s', (header, name) => {
		expect(fileNameFromContentDisposition(header)).toBe(name);
	});

	it.each([undefined, '', 'attachment', 'inline; name="x"', 'attachment; filename=".."', 'attachment; filename="dir/"'])(
		'gives nothing for %j',
		(header) => {
			expect(fileNameFromContentDisposition(header)).toBeUndefined();
		},
	);

	it('falls back to filename when filename* is not decodable', () => {
		expect(fileNameFromContentDisposition('attachment; filename*=UTF-8\'\'%E0%A4%A; filename="plain.zip"')).toBe('plain.zip');
	});
});
