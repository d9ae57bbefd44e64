/**
 * A blind check corpus (manuals, bilingual): Debian's English manual pages and their
 * Spanish translations from `manpages-es`, one document per page and language, for a
 * fixed list of common command-line tools and files (sections 1, 5 and 8): pages that
 * exist in both languages (twins), pages whose Spanish translation does not exist, and
 * pages kept in Spanish only (their English original lives in a package a knowledge
 * base would not hold). Rendered to HTML by Debian's `mandoc`, never parsed here.
 * Questions in `manpages.json`, labelled before any ranking ran on this corpus
 * (README.md beside this file); nothing is tuned on them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DOMParser, type parseHTML } from 'linkedom';
import type { Question } from '../metrics.js';
import { byKey, checkedQuestions, escapeHtml, page, squash, type BlindDocument } from './shared.js';

export const MAN_DIR = '/usr/share/man';

/** Pages in English and Spanish. */
export const TWINS = [
  'ls.1', 'cp.1', 'mv.1', 'rm.1', 'mkdir.1', 'rmdir.1', 'ln.1', 'chmod.1', 'chown.1', 'chgrp.1', 'touch.1', 'cat.1',
  'head.1', 'tail.1', 'sort.1', 'uniq.1', 'cut.1', 'wc.1', 'tr.1', 'split.1', 'du.1', 'df.1', 'dd.1', 'date.1', 'stat.1',
  'grep.1', 'diff.1', 'tee.1', 'timeout.1', 'nice.1', 'renice.1', 'nohup.1', 'env.1', 'sha256sum.1', 'md5sum.1',
  'base64.1', 'shred.1', 'mktemp.1', 'readlink.1', 'seq.1', 'paste.1', 'join.1', 'comm.1', 'od.1', 'uname.1', 'id.1',
  'who.1', 'last.1', 'hostname.1', 'stty.1', 'make.1', 'man.1', 'apropos.1', 'bzip2.1', 'zgrep.1', 'install.1',
  'numfmt.1', 'truncate.1', 'printf.1', 'time.1', 'ldd.1', 'test.1', 'wall.1',
  'fstab.5', 'hosts.5', 'group.5', 'shells.5', 'services.5', 'apt_preferences.5', 'dir_colors.5', 'host.conf.5',
  'motd.5', 'issue.5', 'securetty.5', 'nologin.5', 'filesystems.5',
  'apt-cache.8', 'apt-cdrom.8', 'apt-config.8', 'chroot.8', 'ifconfig.8', 'route.8', 'netstat.8', 'run-parts.8',
  'mkfs.8', 'tzselect.8', 'sulogin.8', 'savelog.8', 'add-shell.8', 'mandb.8', 'ld.so.8',
] as const;

/** Pages in English only: `manpages-es` has no translation of them. */
export const ENGLISH_ONLY = [
  'find.1', 'xargs.1', 'tar.1', 'ps.1', 'kill.1', 'top.1', 'passwd.1', 'ssh.1', 'scp.1', 'ssh-keygen.1', 'systemctl.1',
  'journalctl.1', 'gzip.1', 'less.1', 'sed.1', 'file.1', 'dmesg.1', 'free.1', 'uptime.1', 'watch.1', 'pgrep.1', 'su.1',
  'dpkg.1', 'dpkg-query.1', 'xz.1', 'locale.1', 'killall.1', 'chattr.1', 'chage.1', 'timedatectl.1', 'hostnamectl.1',
  'unzip.1',
  'sources.list.5', 'passwd.5', 'shadow.5', 'apt.conf.5', 'resolv.conf.5',
  'mount.8', 'umount.8', 'useradd.8', 'usermod.8', 'userdel.8', 'apt-get.8', 'apt.8', 'ip.8', 'lsblk.8', 'groupadd.8',
  'dpkg-reconfigure.8', 'locale-gen.8', 'e2fsck.8', 'swapon.8', 'sysctl.8', 'blkid.8', 'adduser.8', 'lsof.8',
] as const;

/**
 * Pages in Spanish only: translated by `manpages-es`, their English original left out
 * (most are from packages this corpus does not install: at, logrotate, kbd, acct,
 * procmail, mtools, psutils), as a knowledge base holds some documents in one language.
 */
export const SPANISH_ONLY = [
  'at.1', 'setleds.1', 'showkey.1', 'chvt.1', 'dumpkeys.1', 'ac.1', 'lastcomm.1', 'mcopy.1', 'psnup.1',
  'ftpusers.5', 'procmailrc.5',
  'atd.8', 'logrotate.8', 'accton.8', 'sa.8',
] as const;

/** The Debian packages whose pages the fixed lists read (`dpkg -S`, bookworm). */
export const MAN_PACKAGES = [
  'manpages-es', 'mandoc', 'manpages', 'coreutils', 'adduser', 'apt', 'bsdutils', 'bzip2', 'debconf', 'debianutils',
  'diffutils', 'dpkg', 'e2fsprogs', 'file', 'findutils', 'grep', 'gzip', 'hostname', 'iproute2', 'less',
  'locales', 'lsof', 'make', 'man-db', 'mount', 'net-tools', 'openssh-client', 'passwd', 'procps', 'psmisc', 'sed',
  'systemd', 'tar', 'time', 'unzip', 'util-linux', 'xz-utils',
];

export const MAN_INSTALL_HINT =
  'the manual pages of this corpus (or mandoc) are not all installed; install them with\n' +
  `  apt-get install -y ${MAN_PACKAGES.join(' ')}\n` +
  '(a Docker image that excludes /usr/share/man in /etc/dpkg/dpkg.cfg.d/ installs no page)';

/** `ls.1`, `es` → `/usr/share/man/es/man1/ls.1.gz`. */
export function manFile(name: string, lang: 'en' | 'es', dir: string = MAN_DIR): string {
  const section = name.slice(name.lastIndexOf('.') + 1);
  return join(dir, lang === 'es' ? 'es' : '', `man${section}`, `${name}.gz`);
}

/** Every page of the fixed lists, in the languages it is kept in. */
export function manPages(): { name: string; langs: ('en' | 'es')[] }[] {
  return [
    ...TWINS.map((name) => ({ name, langs: ['en', 'es'] as ('en' | 'es')[] })),
    ...ENGLISH_ONLY.map((name) => ({ name, langs: ['en'] as ('en' | 'es')[] })),
    ...SPANISH_ONLY.map((name) => ({ name, langs: ['es'] as ('en' | 'es')[] })),
  ];
}

function mandocInstalled(): boolean {
  try {
    execFileSync('mandoc', ['-V'], { stdio: 'ignore' });
    return true;
  } catch (e) {
    // mandoc -V prints its usage and exits 1 (it has no version option); ENOENT means absent.
    return (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** The pages that are missing, empty when the corpus can be read. */
export function missingManPages(dir: string = MAN_DIR): string[] {
  const missing = manPages().flatMap(({ name, langs }) => langs.map((l) => manFile(name, l, dir)).filter((f) => !existsSync(f)));
  return mandocInstalled() ? missing : ['mandoc', ...missing];
}

export function manpagesInstalled(dir: string = MAN_DIR): boolean {
  return missingManPages(dir).length === 0;
}

type Element = ReturnType<typeof parseHTML>['document']['body'];

interface Rendered {
  title: string;
  body: string;
  text: string;
  prose: string[];
}

/** A page as mandoc renders it: `manual-text` only (no running head and foot). */
function render(name: string, lang: 'en' | 'es', dir: string): Rendered {
  const file = manFile(name, lang, dir);
  const html = execFileSync('mandoc', ['-T', 'html', '-O', 'fragment', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const document = new DOMParser().parseFromString(`<!DOCTYPE html><html><body>${html}</body></html>`, 'text/html');
  const text = document.querySelector('div.manual-text') as Element | null;
  if (!text) throw new Error(`${file}: mandoc gave no manual text`);
  // NAME / NOMBRE: "ls - list directory contents", as `man -k` shows it.
  const whatis = squash(text.querySelector('section.Sh p')?.textContent);
  const dash = whatis.search(/\s[-\u2010-\u2015]\s/);
  const purpose = dash >= 0 ? whatis.slice(dash).replace(/^\s[-\u2010-\u2015]\s/, '') : whatis;
  const cut = name.lastIndexOf('.');
  const title = `${name.slice(0, cut)}(${name.slice(cut + 1)}) - ${purpose}`;
  const prose = ([...text.querySelectorAll('p, dd, li')] as Element[])
    .filter((el) => !el.querySelector('p, dd, li'))
    .map((el) => squash(el.textContent))
    .filter((t) => /\p{L}{3}.*\s\p{L}{3}/u.test(t));
  return { title, body: `<h1>${escapeHtml(title)}</h1>\n${text.innerHTML}`, text: `${title} ${squash(text.textContent)}`, prose };
}

/**
 * One document per page and language, key `<page>@<lang>` (`ls.1@es`), section the page
 * name (`ls.1`: both languages of a twin are one result), uploaded as `ls.1.es.html`
 * with the page's `name(section) - purpose` as its `<title>`.
 */
export function manpagesDocuments(dir: string = MAN_DIR): BlindDocument[] {
  const docs: BlindDocument[] = [];
  for (const { name, langs } of manPages()) {
    const rendered = new Map(langs.map((l) => [l, render(name, l, dir)]));
    const english = rendered.get('en');
    for (const [lang, r] of rendered) {
      const doc: BlindDocument = { key: `${name}@${lang}`, section: name, lang, title: r.title, html: page(r.title, lang, r.body), text: r.text, filename: `${name}.${lang}.html` };
      if (lang === 'es' && english) {
        const same = new Set(english.prose);
        const total = r.prose.reduce((n, p) => n + p.length, 0);
        doc.englishShare = total ? r.prose.filter((p) => same.has(p)).reduce((n, p) => n + p.length, 0) / total : 0;
      }
      docs.push(doc);
    }
  }
  return byKey(docs);
}

export function manpagesQuestions(docs: BlindDocument[]): Question[] {
  return checkedQuestions(new URL('./manpages.json', import.meta.url), docs);
}
